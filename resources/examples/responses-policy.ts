// A runEpisode policy backed by the OpenAI Responses API (the official `openai` package,
// `responses.create`, or `responses.stream` when streaming): the history's system message is sent
// as `instructions`, the rest as input items (assistant turns as a message item and function_call
// items, tool results as function_call_output items); the answer's output items come back as one
// assistant message.
import type OpenAI from 'openai';
import type { ChatMessage, Tool, ToolCall } from '../../src/shared/chat';
import type { Policy } from '../../src/shared/episode';
import { UNANSWERED_CALL_ID } from './openai-policy';

type InputItem = OpenAI.Responses.ResponseInputItem;

/** Our chat history (without its system messages) as Responses input items. */
export function toResponsesInput(messages: readonly ChatMessage[]): InputItem[] {
  return messages.flatMap((m): InputItem[] => {
    switch (m.role) {
      case 'system':
        return [];
      case 'user':
        return [{ role: 'user', content: m.content ?? '' }];
      case 'tool':
        return [
          { type: 'function_call_output', call_id: m.tool_call_id ?? UNANSWERED_CALL_ID, output: m.content ?? '' },
        ];
      case 'assistant': {
        const text = m.content ?? '';
        const calls = m.tool_calls ?? [];
        return [
          ...(text !== '' || calls.length === 0 ? [{ role: 'assistant' as const, content: text }] : []),
          ...calls.map((c): InputItem => ({
            type: 'function_call',
            call_id: c.id,
            name: c.function.name,
            arguments: c.function.arguments,
          })),
        ];
      }
    }
  });
}

/** A Response's output items as our assistant message. */
export function fromResponse(r: OpenAI.Responses.Response): ChatMessage {
  const text = r.output
    .flatMap((o) => (o.type === 'message' ? o.content.flatMap((p) => (p.type === 'output_text' ? [p.text] : [])) : []))
    .join('');
  const calls: ToolCall[] = r.output.flatMap((o) =>
    o.type === 'function_call'
      ? [{ id: o.call_id, type: 'function' as const, function: { name: o.name, arguments: o.arguments } }]
      : [],
  );
  return calls.length > 0
    ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
    : { role: 'assistant', content: text };
}

export interface ResponsesPolicyOptions {
  model: string;
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  /** Use `responses.stream` (typed SSE events) instead of one JSON answer. */
  stream?: boolean;
}

export function responsesPolicy(openai: OpenAI, o: ResponsesPolicyOptions): Policy {
  return async (messages: ChatMessage[], tools: Tool[]) => {
    const instructions = messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content ?? '')
      .join('\n');
    const params = {
      model: o.model,
      ...(instructions !== '' ? { instructions } : {}),
      input: toResponsesInput(messages),
      ...(tools.length > 0
        ? {
            tools: tools.map((t): OpenAI.Responses.FunctionTool => ({
              type: 'function',
              name: t.function.name,
              description: t.function.description ?? null,
              parameters: t.function.parameters ?? null,
              strict: false,
            })),
          }
        : {}),
      ...(o.maxTokens !== undefined ? { max_output_tokens: o.maxTokens } : {}),
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    };
    const opts = o.signal ? { signal: o.signal } : {};
    const res = o.stream
      ? await openai.responses.stream(params, opts).finalResponse()
      : await openai.responses.create(params, opts);
    return fromResponse(res);
  };
}
