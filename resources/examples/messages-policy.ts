// A runEpisode policy backed by the Anthropic Messages API (the official `@anthropic-ai/sdk`,
// `messages.create`, or `messages.stream` when streaming): system messages go to `system`,
// assistant turns become text + tool_use blocks, tool results become tool_result blocks of a user
// message; the answer's content blocks come back as one assistant message.
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, Tool, ToolCall } from '../../src/shared/chat';
import type { Policy } from '../../src/shared/episode';
import { UNANSWERED_CALL_ID } from './openai-policy';

type Block = Anthropic.ContentBlockParam;

function inputOf(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v)) : {};
  } catch {
    return {};
  }
}

/**
 * Our chat history (without system messages) as Anthropic messages; consecutive tool results share one user message.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]): void => {
    const last = out.at(-1);
    if (last && last.role === role && role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'user') push('user', [{ type: 'text', text: m.content ?? '' }]);
    else if (m.role === 'tool')
      push('user', [
        { type: 'tool_result', tool_use_id: m.tool_call_id ?? UNANSWERED_CALL_ID, content: m.content ?? '' },
      ]);
    else {
      const text = m.content ?? '';
      const calls = m.tool_calls ?? [];
      push('assistant', [
        ...(text !== '' || calls.length === 0 ? [{ type: 'text' as const, text }] : []),
        ...calls.map((c): Block => ({
          type: 'tool_use',
          id: c.id,
          name: c.function.name,
          input: inputOf(c.function.arguments),
        })),
      ]);
    }
  }
  return out;
}

/** A Message's content blocks as our assistant message. */
export function fromAnthropicMessage(r: Anthropic.Message): ChatMessage {
  const text = r.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  const calls: ToolCall[] = r.content.flatMap((b) =>
    b.type === 'tool_use'
      ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input) } }]
      : [],
  );
  return calls.length > 0
    ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
    : { role: 'assistant', content: text };
}

export interface MessagesPolicyOptions {
  model: string;
  maxTokens: number;
  signal?: AbortSignal;
  temperature?: number;
  /** Use `messages.stream` (SSE events) instead of one JSON answer. */
  stream?: boolean;
}

export function messagesPolicy(anthropic: Anthropic, o: MessagesPolicyOptions): Policy {
  return async (messages: ChatMessage[], tools: Tool[]) => {
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content ?? '')
      .join('\n');
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: o.model,
      max_tokens: o.maxTokens,
      ...(system !== '' ? { system } : {}),
      messages: toAnthropicMessages(messages),
      ...(tools.length > 0
        ? {
            tools: tools.map((t): Anthropic.Tool => ({
              name: t.function.name,
              description: t.function.description ?? '',
              input_schema: { type: 'object', ...t.function.parameters },
            })),
          }
        : {}),
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    };
    const opts = o.signal ? { signal: o.signal } : {};
    const res = o.stream
      ? await anthropic.messages.stream(params, opts).finalMessage()
      : await anthropic.messages.create(params, opts);
    return fromAnthropicMessage(res);
  };
}
