// Responses API ⇄ the server's chat shape. A request becomes a chat-completion request (the same
// `prepareRequest` / CompletionService path as /v1/chat/completions, so the call lands in the same
// token-exact timeline), and an answered chat message becomes the Response object. Consecutive
// assistant items (message + function_call) form one assistant turn whose content is the
// concatenation of its texts, so sending back what the server answered reproduces the recorded
// turn exactly (and the next call's prompt extends this one's: timelines merge). Pure.
import type { ChatMessage, Tool } from '../chat';
import { ChatTurns } from '../chat-turns';
import { prop, refuse, refuseIfSet, refuseUnknownFields } from '../api-refusals';
import { checkArguments, checkContentBlocks } from '../request-limits';
import type { Block } from '../stream-blocks';
import type { ChatCompletionRequest, ChatCompletionUsage } from '../swarm-protocol';
import { HARMLESS_INCLUDES, RESPONSES_FIELDS, type InputItem, type ResponsesRequest } from './schema';

const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'];

/** Input items and their content parts, counted without walking the parts. */
function itemCount(input: readonly unknown[]): number {
  let n = 0;
  for (const item of input) {
    const content = prop(item, 'content') ?? prop(item, 'output');
    n += Array.isArray(content) ? Math.max(1, content.length) : 1;
  }
  return n;
}

/**
 * Refusals that must come before schema validation and translation, so they name the cause
 * instead of a union mismatch and bound the work (items, parts, the depth of call arguments).
 */
export function checkResponsesBody(body: unknown): void {
  refuseUnknownFields(body, RESPONSES_FIELDS, 'POST /v1/responses');
  const input = prop(body, 'input');
  if (Array.isArray(input)) {
    checkContentBlocks(itemCount(input), 'input');
    for (const [i, item] of input.entries()) {
      const type = prop(item, 'type');
      const args = prop(item, 'arguments');
      if (type === 'function_call' && typeof args === 'string') checkArguments(`input[${i}].arguments`, args);
      if (type !== undefined && !ITEM_TYPES.includes(String(type))) {
        throw refuse(
          'unsupported_input_item',
          `input[${i}] has type ${JSON.stringify(String(type)).slice(0, 80)}; this server takes message, ` +
            'function_call, function_call_output and reasoning items',
        );
      }
      const content = prop(item, 'content') ?? prop(item, 'output');
      if (!Array.isArray(content)) continue;
      for (const part of content) {
        const pt = prop(part, 'type');
        const reasoningText = type === 'reasoning' && pt === 'reasoning_text';
        if (pt !== 'input_text' && pt !== 'output_text' && pt !== 'text' && !reasoningText) {
          throw refuse(
            'unsupported_content',
            `input[${i}] has a ${JSON.stringify(String(pt)).slice(0, 60)} content part; only text parts are supported`,
          );
        }
      }
    }
  }
  const tools = prop(body, 'tools');
  if (Array.isArray(tools)) {
    for (const t of tools) {
      const type = prop(t, 'type');
      if (type !== 'function')
        throw refuse(
          'unsupported_tool',
          `tool type ${JSON.stringify(String(type)).slice(0, 60)} is not supported; only function tools are`,
        );
    }
  }
}

function textOf(content: string | { text: string }[]): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

/** A reasoning item's text: its reasoning_text content, else its summary. */
function reasoningOf(item: Extract<InputItem, { type: 'reasoning' }>): string {
  const content = (item.content ?? []).map((p) => p.text).join('');
  return content !== '' ? content : item.summary.map((p) => p.text).join('\n');
}

/** Input items as chat messages (instructions not included). */
export function itemsToMessages(items: readonly InputItem[]): ChatMessage[] {
  const turns = new ChatTurns();
  for (const item of items) {
    if (item.type === 'reasoning') turns.reasoning(reasoningOf(item));
    else if (item.type === 'function_call')
      turns.toolCall({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    else if (item.type === 'function_call_output')
      turns.message({ role: 'tool', content: textOf(item.output), tool_call_id: item.call_id });
    else if (item.role === 'assistant') turns.assistantText(textOf(item.content));
    else turns.message({ role: item.role === 'user' ? 'user' : 'system', content: textOf(item.content) });
  }
  return turns.messages();
}

function refuseUnsupported(req: ResponsesRequest): void {
  const format = req.text?.format?.type;
  if (format !== undefined && format !== 'text')
    throw refuse(
      'response_format_not_supported',
      `text.format ${JSON.stringify(format)} is not supported; only plain text replies are generated`,
    );
  for (const inc of req.include ?? []) {
    if (!HARMLESS_INCLUDES.includes(inc))
      throw refuse('unsupported_parameter', `include ${JSON.stringify(inc)} is not supported`);
  }
  if (req.truncation === 'auto')
    throw refuse(
      'unsupported_parameter',
      '`truncation: "auto"` is not supported: the server never drops input items (an overlong prompt gets context_length_exceeded)',
    );
  if ((req.top_logprobs ?? 0) > 0) throw refuse('unsupported_parameter', '`top_logprobs` is not supported');
  refuseIfSet(req.reasoning, 'reasoning', 'the served model has no reasoning settings');
  refuseIfSet(req.background, 'background', 'responses run in the foreground');
  refuseIfSet(req.conversation, 'conversation', 'use previous_response_id within the episode');
  refuseIfSet(req.prompt, 'prompt', 'prompt templates are not stored on this server');
  refuseIfSet(req.context_management, 'context_management', 'the server does not compact context');
  refuseIfSet(req.max_tool_calls, 'max_tool_calls', 'the model decides how many calls to make');
}

/**
 * The chat-completion request a Responses request stands for.
 * @param previous the conversation of `previous_response_id` (its input and output), or null.
 */
export function responsesToChat(
  req: ResponsesRequest,
  previous: readonly ChatMessage[] | null,
): { chat: ChatCompletionRequest; conversation: ChatMessage[] } {
  refuseUnsupported(req);
  const input =
    typeof req.input === 'string' ? [{ role: 'user' as const, content: req.input }] : itemsToMessages(req.input);
  const conversation = [...(previous ?? []), ...input];
  const messages: ChatMessage[] = [
    ...(req.instructions ? [{ role: 'system' as const, content: req.instructions }] : []),
    ...conversation,
  ];
  const tools: Tool[] = (req.tools ?? []).map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      ...(t.parameters ? { parameters: t.parameters } : {}),
    },
  }));
  const choice = req.tool_choice;
  const chat: ChatCompletionRequest = {
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(choice !== undefined && choice !== null
      ? { tool_choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } } }
      : {}),
    ...(req.max_output_tokens ? { max_tokens: req.max_output_tokens } : {}),
    ...(req.temperature !== undefined && req.temperature !== null ? { temperature: req.temperature } : {}),
    ...(req.top_p !== undefined && req.top_p !== null ? { top_p: req.top_p } : {}),
    stream: req.stream === true,
  };
  return { chat, conversation };
}

export interface ResponseMeta {
  id: string;
  createdAt: number;
  model: string;
  /** The ids of items are `<msg|fc>_<itemBase>_<output index>`. */
  itemBase: string;
}

/** One output item of a Response from a block, with its status. */
export function outputItem(
  meta: ResponseMeta,
  index: number,
  block: Block,
  status: 'in_progress' | 'completed',
): Record<string, unknown> {
  if (block.type === 'reasoning') {
    return {
      type: 'reasoning',
      id: `rs_${meta.itemBase}_${index}`,
      summary: [],
      content: [{ type: 'reasoning_text', text: block.text }],
      status,
    };
  }
  if (block.type === 'tool_call') {
    return {
      type: 'function_call',
      id: `fc_${meta.itemBase}_${index}`,
      call_id: block.id,
      name: block.name,
      arguments: block.arguments,
      status,
    };
  }
  return {
    type: 'message',
    id: `msg_${meta.itemBase}_${index}`,
    status,
    role: 'assistant',
    content:
      status === 'in_progress' && block.text === ''
        ? []
        : [{ type: 'output_text', text: block.text, annotations: [], logprobs: [] }],
  };
}

export interface ResponseOutcome {
  blocks: readonly Block[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: ChatCompletionUsage;
}

/** The Response object: `outcome` null while in progress (stream start). */
export function responseObject(
  meta: ResponseMeta,
  req: ResponsesRequest,
  outcome: ResponseOutcome | null,
): Record<string, unknown> {
  const incomplete = outcome?.finishReason === 'length';
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status: outcome === null ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    max_tool_calls: null,
    model: meta.model,
    output: outcome === null ? [] : outcome.blocks.map((b, i) => outputItem(meta, i, b, 'completed')),
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: req.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: req.store ?? true,
    temperature: req.temperature ?? null,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: req.tool_choice ?? 'auto',
    tools: (req.tools ?? []).map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? true,
    })),
    top_logprobs: 0,
    top_p: req.top_p ?? null,
    truncation: 'disabled',
    user: req.user ?? null,
    metadata: req.metadata ?? {},
    usage:
      outcome === null
        ? null
        : {
            input_tokens: outcome.usage.prompt_tokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: outcome.usage.completion_tokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: outcome.usage.total_tokens,
          },
  };
}
