// Anthropic Messages API ⇄ the server's chat shape. A request becomes a chat-completion request
// (the same `prepareRequest` / CompletionService path as /v1/chat/completions, so the call lands
// in the same token-exact timeline): `system` → a system message; a user message's tool_result
// blocks → tool messages (in order) and its text blocks → a user message; an assistant message's
// text blocks (concatenated) → content and its tool_use blocks → tool calls with the input as JSON
// arguments. An answered chat message becomes the Message object. Pure.
import type { ChatMessage, Tool, ToolCall } from '../chat';
import { prop, refuse, refuseIfSet, refuseUnknownFields } from '../api-refusals';
import { checkContentBlocks } from '../request-limits';
import { argumentsObject, type Block } from '../stream-blocks';
import type { ChatCompletionRequest, ChatCompletionUsage, ToolChoice } from '../swarm-protocol';
import { MESSAGES_FIELDS, type ContentBlock, type MessagesRequest } from './schema';

const BLOCK_TYPES = ['text', 'tool_use', 'tool_result', 'thinking'];

/** Messages and content blocks of a raw body (tool_result contents included), counted without walking them all. */
function blockCount(messages: readonly unknown[], system: unknown): number {
  let n = Array.isArray(system) ? system.length : 0;
  for (const m of messages) {
    const content = prop(m, 'content');
    n += Array.isArray(content) ? Math.max(1, content.length) : 1;
  }
  return n;
}

/** Refusals that must come before schema validation and translation, so they name the cause and bound the work. */
export function checkMessagesBody(body: unknown): void {
  refuseUnknownFields(body, MESSAGES_FIELDS, 'POST /v1/messages');
  const messages = prop(body, 'messages');
  if (Array.isArray(messages)) {
    const outer = blockCount(messages, prop(body, 'system'));
    checkContentBlocks(outer, 'messages');
    let inner = 0;
    for (const [i, m] of messages.entries()) {
      const content = prop(m, 'content');
      if (!Array.isArray(content)) continue;
      for (const block of content) {
        const type = prop(block, 'type');
        if (!BLOCK_TYPES.includes(String(type))) {
          throw refuse(
            'unsupported_content',
            `messages[${i}] has a ${JSON.stringify(String(type)).slice(0, 60)} block; this server takes text, ` +
              'tool_use, tool_result and thinking blocks',
          );
        }
        const result = prop(block, 'content');
        if (type !== 'tool_result' || !Array.isArray(result)) continue;
        inner += result.length;
        if (result.some((b) => prop(b, 'type') !== 'text')) {
          throw refuse(
            'unsupported_content',
            `messages[${i}] has a tool_result with non-text content; only text is supported`,
          );
        }
      }
    }
    checkContentBlocks(outer + inner, 'messages');
  }
  const tools = prop(body, 'tools');
  if (Array.isArray(tools)) {
    for (const t of tools) {
      const type = prop(t, 'type');
      if (type !== undefined && type !== 'custom')
        throw refuse(
          'unsupported_tool',
          `tool type ${JSON.stringify(String(type)).slice(0, 60)} is not supported; only custom (client) tools are`,
        );
    }
  }
}

const textOfBlocks = (blocks: readonly { text: string }[]): string => blocks.map((b) => b.text).join('');

function userMessages(content: readonly ContentBlock[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let text: string[] = [];
  const flush = (): void => {
    if (text.length > 0) out.push({ role: 'user', content: text.join('') });
    text = [];
  };
  for (const block of content) {
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_result') {
      flush();
      const c =
        block.content === undefined
          ? ''
          : typeof block.content === 'string'
            ? block.content
            : textOfBlocks(block.content);
      out.push({ role: 'tool', content: c, tool_call_id: block.tool_use_id });
    } else throw refuse('invalid_messages', `a user message cannot carry a ${block.type} block`);
  }
  flush();
  return out;
}

function assistantMessage(content: readonly ContentBlock[]): ChatMessage {
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const thinking: string[] = [];
  for (const block of content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') thinking.push(block.thinking);
    else if (block.type === 'tool_use')
      calls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input) },
      });
    else throw refuse('invalid_messages', 'an assistant message cannot carry a tool_result block');
  }
  const text = texts.join('');
  const reasoning = thinking.length > 0 ? { reasoning_content: thinking.join('') } : {};
  return calls.length > 0
    ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls, ...reasoning }
    : { role: 'assistant', content: text, ...reasoning };
}

/** The messages (system first) a Messages request stands for. */
export function messagesToChatMessages(req: Pick<MessagesRequest, 'system' | 'messages'>): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (req.system !== undefined) {
    const system = typeof req.system === 'string' ? req.system : textOfBlocks(req.system);
    if (system !== '') out.push({ role: 'system', content: system });
  }
  for (const m of req.messages) {
    if (typeof m.content === 'string') out.push({ role: m.role, content: m.content });
    else if (m.role === 'user') out.push(...userMessages(m.content));
    else out.push(assistantMessage(m.content));
  }
  return out;
}

function toolChoiceOf(choice: MessagesRequest['tool_choice']): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  switch (choice.type) {
    case 'auto':
    case 'none':
      return choice.type;
    case 'any':
      return 'required';
    case 'tool':
      if (choice.name === undefined) throw refuse('invalid_tool_choice', 'tool_choice {type: "tool"} needs a `name`');
      return { type: 'function', function: { name: choice.name } };
  }
}

/** The chat-completion request a Messages request stands for. */
export function messagesToChat(req: MessagesRequest): ChatCompletionRequest {
  if (req.top_k !== undefined && req.top_k !== null)
    throw refuse('unsupported_parameter', '`top_k` is not supported: the server samples with temperature and top_p');
  if (req.thinking && req.thinking.type !== 'disabled')
    throw refuse('unsupported_parameter', '`thinking` is not supported: the served model has no extended thinking');
  refuseIfSet(req.container, 'container', 'there are no code-execution containers here');
  refuseIfSet(req.mcp_servers, 'mcp_servers', 'the server does not call MCP servers');
  refuseIfSet(req.context_management, 'context_management', 'the server does not edit context');
  const tools: Tool[] = (req.tools ?? []).map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.input_schema,
    },
  }));
  const choice = toolChoiceOf(req.tool_choice);
  return {
    messages: messagesToChatMessages(req),
    ...(tools.length > 0 ? { tools } : {}),
    ...(choice !== undefined ? { tool_choice: choice } : {}),
    max_tokens: req.max_tokens,
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.top_p !== undefined ? { top_p: req.top_p } : {}),
    ...(req.stop_sequences && req.stop_sequences.length > 0 ? { stop: req.stop_sequences } : {}),
    stream: req.stream === true,
  };
}

export type StopReason = 'end_turn' | 'max_tokens' | 'tool_use';

export function stopReasonOf(finish: 'stop' | 'length' | 'tool_calls'): StopReason {
  return finish === 'tool_calls' ? 'tool_use' : finish === 'length' ? 'max_tokens' : 'end_turn';
}

/** One content block of a Message (tool calls as tool_use with their arguments parsed). */
export function contentBlock(block: Block): Record<string, unknown> {
  if (block.type === 'reasoning') return { type: 'thinking', thinking: block.text, signature: '' };
  return block.type === 'text'
    ? { type: 'text', text: block.text }
    : { type: 'tool_use', id: block.id, name: block.name, input: argumentsObject(block.arguments) };
}

export function messagesUsage(usage: ChatCompletionUsage): Record<string, number> {
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

/** The Message object of a finished call. */
export function messageObject(
  id: string,
  model: string,
  blocks: readonly Block[],
  finish: 'stop' | 'length' | 'tool_calls',
  usage: ChatCompletionUsage,
): Record<string, unknown> {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: blocks.map(contentBlock),
    stop_reason: stopReasonOf(finish),
    stop_sequence: null,
    usage: messagesUsage(usage),
  };
}
