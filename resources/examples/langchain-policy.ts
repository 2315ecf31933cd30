// A runEpisode policy backed by LangChain.js: a `@langchain/openai` ChatOpenAI model with the env's
// tools bound to it (`bindTools`), invoked once per assistant turn on the history as LangChain
// messages; its AIMessage (tool calls, and invalid ones with their raw argument text) comes back
// as our assistant message.
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type AIMessageChunk,
  type BaseMessage,
} from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import type { ChatMessage, Tool, ToolCall } from '../../src/shared/chat';
import type { Policy } from '../../src/shared/episode';
import { UNANSWERED_CALL_ID } from './openai-policy';

function argsOf(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v)) : {};
  } catch {
    return {};
  }
}

/** Our chat history as LangChain messages. */
export function toLangChain(messages: readonly ChatMessage[]): BaseMessage[] {
  return messages.map((m): BaseMessage => {
    const content = m.content ?? '';
    switch (m.role) {
      case 'system':
        return new SystemMessage(content);
      case 'user':
        return new HumanMessage(content);
      case 'tool':
        return new ToolMessage({ content, tool_call_id: m.tool_call_id ?? UNANSWERED_CALL_ID });
      case 'assistant':
        return new AIMessage({
          content,
          tool_calls: (m.tool_calls ?? []).map((c) => ({
            id: c.id,
            name: c.function.name,
            args: argsOf(c.function.arguments),
            type: 'tool_call' as const,
          })),
        });
    }
  });
}

/** The model's answer as our assistant message (invalid calls keep their raw argument text). */
export function fromLangChain(m: AIMessage | AIMessageChunk): ChatMessage {
  const text =
    typeof m.content === 'string'
      ? m.content
      : m.content
          .flatMap((p) => (p.type === 'text' && 'text' in p && typeof p.text === 'string' ? [p.text] : []))
          .join('');
  const calls: ToolCall[] = [
    ...(m.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${i}`,
      type: 'function' as const,
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    })),
    ...(m.invalid_tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_invalid_${i}`,
      type: 'function' as const,
      function: { name: c.name ?? '', arguments: c.args ?? '' },
    })),
  ];
  return calls.length > 0
    ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
    : { role: 'assistant', content: text };
}

export interface LangChainPolicyOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
}

/** A Policy that invokes a ChatOpenAI model with the env's tools bound to it, once per turn. */
export function langchainPolicy(o: LangChainPolicyOptions): Policy {
  const chat = new ChatOpenAI({
    model: o.model,
    apiKey: o.apiKey,
    configuration: { baseURL: o.baseUrl },
    maxRetries: 2,
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
  });
  return async (messages: ChatMessage[], tools: Tool[]) => {
    const model = tools.length > 0 ? chat.bindTools(tools) : chat;
    const reply = await model.invoke(toLangChain(messages), o.signal ? { signal: o.signal } : {});
    return fromLangChain(reply);
  };
}
