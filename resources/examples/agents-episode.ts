// One episode of a TaskEnv played by the OpenAI Agents SDK for TypeScript (`@openai/agents`) on the
// Responses API: an Agent whose instructions are the env's system prompt and whose function tools
// run the env's tool answers, `run()` for the whole agent loop (at most env.maxTurns model calls),
// then the run's history back as chat messages and the env's score. Unlike the turn-by-turn
// clients, the SDK owns the loop: a reply with an unreadable `<tool_call>` block ends the run as
// final text (the env would have answered it with an error and given another turn).
import {
  Agent,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
  type AgentInputItem,
  type FunctionTool,
} from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import type { ChatMessage, ToolCall } from '../../src/shared/chat';
import { ChatTurns } from '../../src/shared/chat-turns';
import type { EpisodeResult } from '../../src/shared/episode';
import type { TaskEnv } from '../../src/shared/task';

// No traces leave the machine (the SDK would export them to OpenAI by default).
setTracingDisabled(true);

/** The non-strict JSON-schema form of tool parameters the SDK accepts. */
type NonStrictParameters = Extract<FunctionTool['parameters'], { additionalProperties: true }>;

const TextPart = z.object({ text: z.string().optional() }).loose();
const FunctionCall = z
  .object({ type: z.literal('function_call'), callId: z.string(), name: z.string(), arguments: z.string() })
  .loose();
const FunctionResult = z
  .object({ type: z.literal('function_call_result'), callId: z.string(), output: z.union([z.string(), TextPart]) })
  .loose();
const Message = z
  .object({ role: z.enum(['user', 'system', 'assistant']), content: z.union([z.string(), z.array(TextPart)]) })
  .loose();

const textOf = (content: string | { text?: string | undefined }[]): string =>
  typeof content === 'string' ? content : content.map((p) => p.text ?? '').join('');

/** A run's history (SDK items) as chat messages; an assistant message and its function calls form one turn. */
export function historyToMessages(items: readonly AgentInputItem[]): ChatMessage[] {
  const turns = new ChatTurns();
  for (const raw of items) {
    const call = FunctionCall.safeParse(raw);
    const result = FunctionResult.safeParse(raw);
    const message = Message.safeParse(raw);
    if (call.success)
      turns.toolCall({
        id: call.data.callId,
        type: 'function',
        function: { name: call.data.name, arguments: call.data.arguments },
      });
    else if (result.success) {
      const output = result.data.output;
      turns.message({
        role: 'tool',
        content: typeof output === 'string' ? output : (output.text ?? ''),
        tool_call_id: result.data.callId,
      });
    } else if (message.success && message.data.role === 'assistant') turns.assistantText(textOf(message.data.content));
    else if (message.success) turns.message({ role: message.data.role, content: textOf(message.data.content) });
    // Reasoning and other item kinds carry no chat message.
  }
  return turns.messages();
}

export interface AgentsEpisodeOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
}

/** Plays `task` with an Agents SDK agent; the env answers each tool call the agent makes. */
export async function playWithAgents<T>(env: TaskEnv<T>, task: T, o: AgentsEpisodeOptions): Promise<EpisodeResult> {
  const initial = env.initialMessages(task);
  const system = initial.filter((m) => m.role === 'system');
  const tools = env.tools.map((t) =>
    tool({
      name: t.function.name,
      description: t.function.description ?? '',
      // The env's JSON schema goes to the model as is: non-strict schemas are passed through unchanged
      // (the type's `additionalProperties` marker is not sent).
      parameters: (t.function.parameters ?? { type: 'object', properties: {} }) as NonStrictParameters,
      strict: false,
      execute: (input: unknown) => {
        const call: ToolCall = {
          id: 'call',
          type: 'function',
          function: { name: t.function.name, arguments: JSON.stringify(input) },
        };
        const step = env.respond(task, initial, { role: 'assistant', content: null, tool_calls: [call] });
        return step.messages?.[0]?.content ?? '';
      },
    }),
  );
  const agent = new Agent({
    name: 'swarm-agent',
    instructions: system.map((m) => m.content ?? '').join('\n'),
    model: new OpenAIResponsesModel(new OpenAI({ baseURL: o.baseUrl, apiKey: o.apiKey, maxRetries: 2 }), o.model),
    modelSettings: {
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
    },
    tools,
  });
  const input: AgentInputItem[] = initial
    .filter((m) => m.role === 'user')
    .map((m) => ({ role: 'user', content: m.content ?? '' }));
  let truncated = false;
  const result = await run(agent, input, {
    maxTurns: env.maxTurns,
    ...(o.signal ? { signal: o.signal } : {}),
    errorHandlers: { maxTurns: () => ((truncated = true), { finalOutput: '', includeInHistory: false }) },
  });
  const messages = [...system, ...historyToMessages(result.history)];
  const turns = messages.filter((m) => m.role === 'assistant').length;
  return { messages, turns, truncated, ...env.score(task, messages) };
}
