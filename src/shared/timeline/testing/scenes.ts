// Test support: small hand-written conversations for the example-based merge tests.
import { system, toolResult, user, type ChatMessage } from '../../chat';
import { TOOLS_A } from './episodes';
import { fakeCall, type CallSpec } from './fake-chat';
import type { Timeline } from '../types';

export const SYS = system('You are a calculator.');
export const ASK = user('What is 12+34?');

export const say = (content: string | null, ...calls: [string, string][]): ChatMessage => {
  if (calls.length === 0) return { role: 'assistant', content };
  return {
    role: 'assistant',
    content,
    tool_calls: calls.map(([name, args], j) => ({
      id: `call_${j}_${name}`,
      type: 'function',
      function: { name, arguments: args },
    })),
  };
};

type Step = Omit<CallSpec, 'id' | 'episodeId' | 'callIndex' | 'messages'> & { messages?: ChatMessage[] };

/**
 * A conversation of one agent: each step calls the model with the history so far (or the
 * step's own messages), then appends the reply and a tool result (tool calls) or a user turn.
 */
export function conversation(episodeId: string, steps: Step[], start: ChatMessage[] = [SYS, ASK]): Timeline[] {
  let history = [...start];
  return steps.map((step, k) => {
    const messages = step.messages ?? history;
    const call = fakeCall({ tools: TOOLS_A, ...step, messages, id: `${episodeId}-${k}`, episodeId, callIndex: k });
    const calls = call.output.tool_calls ?? [];
    history = [
      ...messages,
      call.output,
      ...(calls.length > 0 ? calls.map((c) => toolResult(c.id, `= ${k}`)) : [user(`next ${k}`)]),
    ];
    return call;
  });
}

/** The history a call's successor would send: its messages, its output, then `after`. */
export const historyAfter = (t: Timeline, ...after: ChatMessage[]): ChatMessage[] => [
  ...t.messages,
  t.output,
  ...after,
];
