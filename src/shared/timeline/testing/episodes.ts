// Test support: fast-check plans for random multi-turn episodes (growing conversations with tool
// calls, occasional rewrites, truncations, retries, tool changes, drifted and truncated outputs,
// several agents) and a simulator that turns a plan into recorded calls with the fake template.
import fc from 'fast-check';
import { toolResult, user, system, type ChatMessage, type Tool } from '../../chat';
import type { Timeline } from '../types';
import { fakeCall } from './fake-chat';

const ACTIONS = ['continue', 'rewrite', 'truncate', 'tools', 'retry', 'edit_tool_id'] as const;
export type StepAction = (typeof ACTIONS)[number];

export interface StepPlan {
  agent: number;
  action: StepAction;
  toolCalls: number;
  words: number;
  drift: boolean;
  truncated: boolean;
  emptyContent: boolean;
  seed: number;
}

export interface EpisodePlan {
  agents: number;
  steps: StepPlan[];
}

const actionArb: fc.Arbitrary<StepAction> = fc.oneof(
  { arbitrary: fc.constant<StepAction>('continue'), weight: 12 },
  ...ACTIONS.slice(1).map((a) => ({ arbitrary: fc.constant<StepAction>(a), weight: 1 })),
);

export const stepArb: fc.Arbitrary<StepPlan> = fc.record({
  agent: fc.nat({ max: 2 }),
  action: actionArb,
  toolCalls: fc.nat({ max: 2 }),
  words: fc.integer({ min: 1, max: 5 }),
  drift: fc.nat({ max: 4 }).map((n) => n === 0),
  truncated: fc.nat({ max: 9 }).map((n) => n === 0),
  emptyContent: fc.boolean(),
  seed: fc.nat({ max: 10_000 }),
});

export const episodePlanArb = (maxSteps = 12): fc.Arbitrary<EpisodePlan> =>
  fc.record({
    agents: fc.integer({ min: 1, max: 3 }),
    steps: fc.array(stepArb, { minLength: 1, maxLength: maxSteps }),
  });

const WORDS = ['the', 'answer', 'is', 'then', 'calc', 'red', 'in', 'on', 'at', 'sum', '12', '34', 'ok', 'here'];
const tool = (name: string): Tool => ({
  type: 'function',
  function: { name, description: `${name} tool`, parameters: { type: 'object' } },
});
export const TOOLS_A: Tool[] = [tool('calc')];
export const TOOLS_B: Tool[] = [tool('calc'), tool('search')];

interface AgentState {
  name: string;
  tools: Tool[] | null;
  messages: ChatMessage[];
  lastRequest: ChatMessage[] | null;
  lastCall: Timeline | null;
}

function applyAction(a: AgentState, step: StepPlan): void {
  const n = a.messages.length;
  if (step.action === 'rewrite' && n > 2) {
    const i = 1 + (step.seed % (n - 1));
    const m = a.messages[i];
    if (m !== undefined) a.messages[i] = { ...m, content: `${m.content ?? ''} (edited)` };
  } else if (step.action === 'truncate' && n > 3) {
    a.messages = [...a.messages.slice(0, 1), ...a.messages.slice(n - 2)];
  } else if (step.action === 'tools') {
    a.tools = a.tools === null ? TOOLS_B : a.tools === TOOLS_B ? TOOLS_A : null;
  } else if (step.action === 'retry' && a.lastRequest !== null) {
    a.messages = [...a.lastRequest];
  } else if (step.action === 'edit_tool_id') {
    const last = a.messages[n - 1];
    if (last?.role === 'tool') a.messages[n - 1] = { ...last, tool_call_id: `${last.tool_call_id ?? ''}x` };
  }
}

function reply(step: StepPlan, k: number): ChatMessage {
  const words = Array.from({ length: step.words }, (_, i) => WORDS[(step.seed + i * 5) % WORDS.length] ?? 'ok').join(
    ' ',
  );
  if (step.toolCalls === 0 || step.truncated) return { role: 'assistant', content: words };
  const tool_calls = Array.from({ length: step.toolCalls }, (_, j) => ({
    id: `call_${k}_${j}`,
    type: 'function' as const,
    function: { name: 'calc', arguments: JSON.stringify({ expression: `${step.seed % 100}+${j}` }) },
  }));
  return { role: 'assistant', content: step.emptyContent ? (step.seed % 2 === 0 ? null : '') : words, tool_calls };
}

/** Plays a plan: every step is one call of one agent, whose reply then joins its conversation. */
export function simulateEpisode(plan: EpisodePlan, episodeId: string): Timeline[] {
  const agents: AgentState[] = Array.from({ length: plan.agents }, (_, i) => ({
    name: i === 0 ? 'default' : `agent${i}`,
    tools: i % 2 === 0 ? TOOLS_A : null,
    messages: [system(`You are agent ${i}.`), user(`Task ${episodeId}: add 12 and 34, agent ${i}.`)],
    lastRequest: null,
    lastCall: null,
  }));
  const calls: Timeline[] = [];
  plan.steps.forEach((step, k) => {
    const a = agents[step.agent % agents.length];
    if (a === undefined) return;
    applyAction(a, step);
    const request = [...a.messages];
    const sampled = fakeCall({
      id: `${episodeId}-c${k}`,
      episodeId,
      callIndex: k,
      agent: a.name,
      messages: request,
      tools: a.tools,
      reply: reply(step, k),
      finishReason: step.truncated ? 'length' : 'stop',
      keepTokens: 1 + (step.seed % 6),
      driftSeed: step.drift ? step.seed : undefined,
      weightVersion: Math.floor(k / 5),
    });
    // A greedy retry samples exactly what the retried call did (same tokens, same logprobs).
    const previous = a.lastCall;
    const greedy =
      step.action === 'retry' &&
      step.seed % 2 === 0 &&
      previous !== null &&
      previous.weightVersion === sampled.weightVersion;
    const call: Timeline =
      greedy && previous !== null
        ? {
            ...sampled,
            outputIds: previous.outputIds,
            outputLogprobs: previous.outputLogprobs,
            output: previous.output,
            finishReason: previous.finishReason,
          }
        : sampled;
    calls.push(call);
    a.lastCall = call;
    a.lastRequest = request;
    a.messages = [...request, call.output];
    const toolCalls = call.output.tool_calls ?? [];
    toolCalls.forEach((c, j) => a.messages.push(toolResult(c.id, `result ${j}: ${'x'.repeat(step.seed % 7)}`)));
    if (toolCalls.length === 0) a.messages.push(user(`next ${k}`));
  });
  return calls;
}

/** Several episodes at once (ids e0, e1, …). */
export const episodesArb = (maxEpisodes = 3, maxSteps = 12): fc.Arbitrary<Timeline[]> =>
  fc
    .array(episodePlanArb(maxSteps), { minLength: 1, maxLength: maxEpisodes })
    .map((plans) => plans.flatMap((p, i) => simulateEpisode(p, `e${i}`)));
