// A runEpisode policy backed by an OpenAI-compatible chat API (the official `openai` package), shared
// by the example swarm clients: our ChatMessage history in, the model's assistant turn out.
import type OpenAI from 'openai';
import type { ChatMessage, Tool, ToolCall } from '../../src/shared/chat';
import type { Policy } from '../../src/shared/episode';

type MessageParam = OpenAI.Chat.ChatCompletionMessageParam;

/** The id sent for a tool message that answers no call (an unparseable one): the openai package's
 * types require an id, while the raw-fetch client simply omits it; the server accepts both. */
export const UNANSWERED_CALL_ID = 'call_unparsed';

/** One of our chat messages as the openai package's request type. */
export function toOpenAIMessage(m: ChatMessage): MessageParam {
  const content = m.content ?? '';
  switch (m.role) {
    case 'system':
      return { role: 'system', content };
    case 'user':
      return { role: 'user', content };
    case 'tool':
      return { role: 'tool', content, tool_call_id: m.tool_call_id ?? UNANSWERED_CALL_ID };
    case 'assistant':
      return m.tool_calls && m.tool_calls.length > 0
        ? { role: 'assistant', content: m.content, tool_calls: m.tool_calls }
        : { role: 'assistant', content };
  }
}

/** The assistant message of a completion as our ChatMessage (function tool calls only). */
export function fromOpenAIMessage(m: OpenAI.Chat.ChatCompletionMessage): ChatMessage {
  const calls: ToolCall[] = (m.tool_calls ?? []).flatMap((tc) =>
    tc.type === 'function'
      ? [
          {
            id: tc.id,
            type: 'function' as const,
            function: { name: tc.function.name, arguments: tc.function.arguments },
          },
        ]
      : [],
  );
  return calls.length > 0
    ? { role: 'assistant', content: m.content, tool_calls: calls }
    : { role: 'assistant', content: m.content };
}

export interface OpenAIPolicyOptions {
  model: string;
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
}

/** A Policy that asks `openai.chat.completions.create` for each assistant turn. */
export function openaiPolicy(openai: OpenAI, o: OpenAIPolicyOptions): Policy {
  return async (messages: ChatMessage[], tools: Tool[]) => {
    const res = await openai.chat.completions.create(
      {
        model: o.model,
        messages: messages.map(toOpenAIMessage),
        ...(tools.length > 0 ? { tools } : {}),
        ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      },
      o.signal ? { signal: o.signal } : {},
    );
    const choice = res.choices[0];
    if (!choice) throw new Error('chat completion returned no choices');
    return fromOpenAIMessage(choice.message);
  };
}
