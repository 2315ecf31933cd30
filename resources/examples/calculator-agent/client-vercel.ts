// Calculator-agent swarm client with the Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`): each
// assistant turn is one `generateText` call (one step; the tool has no `execute`, so the SDK returns
// the model's tool calls and the env answers them), the same turn-by-turn loop as client-openai.ts,
// ending each episode with the env's score.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, tool, type ModelMessage, type ToolSet } from 'ai';
import { fileURLToPath } from 'node:url';
import type { ChatMessage, Tool, ToolCall } from '../../../src/shared/chat';
import type { Policy } from '../../../src/shared/episode';
import { calculatorExample, loadExampleTasks } from '../index';
import { UNANSWERED_CALL_ID } from '../openai-policy';
import { runSwarmLoop } from '../swarm-loop';

/** A tool call's arguments as the SDK's input: the parsed JSON, or the raw text when it is not JSON. */
function parseInput(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** Our chat history as the AI SDK's messages (tool results name the tool of the call they answer). */
function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((m): ModelMessage => {
    const content = m.content ?? '';
    switch (m.role) {
      case 'system':
        return { role: 'system', content };
      case 'user':
        return { role: 'user', content };
      case 'assistant': {
        const calls = m.tool_calls ?? [];
        if (calls.length === 0) return { role: 'assistant', content };
        for (const c of calls) toolNames.set(c.id, c.function.name);
        return {
          role: 'assistant',
          content: [
            ...(content ? [{ type: 'text' as const, text: content }] : []),
            ...calls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.function.name,
              input: parseInput(c.function.arguments),
            })),
          ],
        };
      }
      case 'tool': {
        const id = m.tool_call_id ?? UNANSWERED_CALL_ID;
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: id,
              toolName: toolNames.get(id) ?? 'calc',
              output: { type: 'text', value: content },
            },
          ],
        };
      }
    }
  });
}

/** Our function tools as an AI SDK tool set, without `execute`: the env runs them. */
function toToolSet(tools: Tool[]): ToolSet {
  return Object.fromEntries(
    tools.map((t) => [
      t.function.name,
      tool({
        description: t.function.description ?? '',
        inputSchema: jsonSchema(t.function.parameters ?? { type: 'object' }),
      }),
    ]),
  );
}

interface VercelPolicyOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  signal?: AbortSignal;
}

/** A Policy that asks the AI SDK's `generateText` (one step) for each assistant turn. */
function vercelPolicy(o: VercelPolicyOptions): Policy {
  const provider = createOpenAICompatible({ name: 'agentjet', baseURL: o.baseUrl, apiKey: o.apiKey });
  return async (messages: ChatMessage[], tools: Tool[]) => {
    const res = await generateText({
      model: provider.chatModel(o.model),
      messages: toModelMessages(messages),
      // The env's system prompt is the first of the history, as the other clients send it.
      allowSystemInMessages: true,
      ...(tools.length > 0 ? { tools: toToolSet(tools) } : {}),
      maxRetries: 2,
      ...(o.signal ? { abortSignal: o.signal } : {}),
    });
    // Invalid calls (arguments that are not JSON) keep their raw text, so the env answers them as the
    // other clients' envs do.
    const calls: ToolCall[] = res.toolCalls.map((c) => ({
      id: c.toolCallId,
      type: 'function',
      function: { name: c.toolName, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) },
    }));
    const text = res.text.length > 0 ? res.text : null;
    return calls.length > 0
      ? { role: 'assistant', content: text, tool_calls: calls }
      : { role: 'assistant', content: res.text };
  };
}

const tasks = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('./data/train.jsonl', import.meta.url)),
);

await runSwarmLoop({
  env: calculatorExample.env,
  tasks,
  policy: ({ baseUrl, apiKey, model, signal }) => vercelPolicy({ baseUrl, apiKey, model, signal }),
});
