// Episodes for the `merge` benchmark: token-exact synthetic multi-turn episodes (a conversation is
// rendered once with spans by the engine; each assistant turn's body becomes one call's output and
// everything before it, through the generation prompt, that call's prompt; logprobs come from the
// engine's `logprobs`), the conversations themselves (tool calls with long tool outputs; a task
// group sharing a long prompt), and played episodes of the example tasks as scored episodes.
import type { ChatMessage, Tool } from '../src/shared/chat';
import { createPrng, type Prng } from '../src/shared/prng';
import {
  TimelineSchema,
  GENERATION_PROMPT_SPAN_INDEX,
  type PromptSpan,
  type Timeline,
} from '../src/shared/timeline/index';
import type { EngineCaller } from '../gpu-worker/src/engine/engine-caller';
import { RemoteError } from '../src/shared/result';
import { fitChars } from './fit-chars';
import type { PlayedEpisode } from '../gpu-worker/src/rollout/evaluate';
import type { ScoredEpisode } from '../gpu-worker/src/trainer/train-samples';

/** The built-in model's calc tool, here printing its working: long tool outputs of any size. */
export const CALC_TOOL: Tool = {
  type: 'function',
  function: {
    name: 'calc',
    description: 'Evaluate an arithmetic expression and show the working.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  },
};

export const GROUP_TASK = 'A shop sells 48 boxes of 24 pens each day for 12 days. How many pens is that?';
const SYSTEM = 'You are a calculator agent. Use the calc tool, then answer as #### <number>.';

/** A long tool output: `chars` characters of worked arithmetic. */
function working(prng: Prng, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let step = 1; length < chars; step++) {
    const a = prng.int(10, 9999);
    const b = prng.int(10, 999);
    const line = `step ${step}: ${a} + ${b} = ${a + b}, carry ${prng.int(0, 9)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

const calcTurn = (id: string, prng: Prng): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [
    {
      id,
      type: 'function',
      function: {
        name: 'calc',
        arguments: JSON.stringify({ expression: `${prng.int(10, 999)}*${prng.int(2, 99)}+${prng.int(1, 99)}` }),
      },
    },
  ],
});

/** A conversation of `turns` assistant turns: `turns - 1` calc calls, each answered with its working, then the answer. */
export function toolConversation(
  prng: Prng,
  turns: number,
  toolChars: number,
  system = SYSTEM,
  task?: string,
): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    {
      role: 'user',
      content:
        task ??
        `A shop sells ${prng.int(10, 99)} boxes of ${prng.int(10, 99)} pens each day for ${prng.int(2, 30)} days. How many pens is that?`,
    },
  ];
  for (let k = 0; k < turns - 1; k++) {
    const id = `call_${k}`;
    messages.push(calcTurn(id, prng), {
      role: 'tool',
      content: working(prng, toolChars),
      tool_call_id: id,
      name: 'calc',
    });
  }
  messages.push({ role: 'assistant', content: `#### ${prng.int(1, 99999)}` });
  return messages;
}

/** A long shared system prompt (worked examples, `chars` characters of them) for a task group. */
export function longSystemPrompt(prng: Prng, chars: number): string {
  return `${SYSTEM}\nWorked examples of the kind of sums you will see:\n${working(prng, chars)}`;
}

/**
 * The calls of one episode, token-exact: the whole conversation is rendered once; assistant
 * message k becomes call k, its prompt = every token before the message plus the generation
 * prompt, its output = the message body through the end-of-turn token, its logprobs the engine's.
 */
export async function synthesizeCalls(
  engine: EngineCaller,
  messages: ChatMessage[],
  tools: Tool[],
  episodeId: string,
  eosId: number,
): Promise<Timeline[]> {
  const rendered = await engine.call('render', { messages, tools, addGenerationPrompt: true });
  const generation = rendered.spans.at(-1);
  if (generation?.messageIndex !== GENERATION_PROMPT_SPAN_INDEX)
    throw new Error('render returned no generation-prompt span');
  const header = rendered.tokenIds.slice(generation.start, generation.end);
  const ids = rendered.tokenIds.slice(0, generation.start);
  const { logprobs } = await engine.call('logprobs', { sequences: [{ tokenIds: ids }] });
  const lp = logprobs[0] ?? [];
  const calls: Timeline[] = [];
  rendered.spans.forEach((span) => {
    const message = messages[span.messageIndex];
    if (message?.role !== 'assistant') return;
    const bodyStart = span.start + header.length;
    if (header.some((t, i) => ids[span.start + i] !== t))
      throw new Error(`assistant message ${span.messageIndex} does not start with the generation prompt`);
    const bodyEnd = ids.lastIndexOf(eosId, span.end - 1) + 1;
    if (bodyEnd <= bodyStart) throw new Error(`assistant message ${span.messageIndex} has no end-of-turn token`);
    const before = rendered.spans.filter((s) => s.end <= span.start);
    const promptSpans: PromptSpan[] = [
      ...before,
      { messageIndex: GENERATION_PROMPT_SPAN_INDEX, role: 'generation_prompt', start: span.start, end: bodyStart },
    ];
    const callIndex = calls.length;
    calls.push(
      TimelineSchema.parse({
        id: `${episodeId}/${callIndex}`,
        episodeId,
        callIndex,
        messages: messages.slice(0, span.messageIndex),
        tools,
        promptIds: ids.slice(0, bodyStart),
        promptSpans,
        outputIds: ids.slice(bodyStart, bodyEnd),
        outputLogprobs: lp.slice(bodyStart, bodyEnd),
        finishReason: 'stop',
        output: message,
        weightVersion: 0,
        createdAt: callIndex,
      }),
    );
  });
  return calls;
}

/** Tokens of `messages` rendered with the calc tool; null where the engine refuses them as over the context. */
async function renderedTokens(
  engine: EngineCaller,
  messages: ChatMessage[],
  addGenerationPrompt: boolean,
): Promise<number | null> {
  try {
    return (await engine.call('render', { messages, tools: [CALC_TOOL], addGenerationPrompt })).tokenIds.length;
  } catch (err) {
    if (err instanceof RemoteError && err.type === 'context_overflow') return null;
    throw err;
  }
}

/** Tool-output size (characters per result) that makes a `turns`-turn conversation about `targetTokens` long. */
export async function fitToolChars(
  engine: EngineCaller,
  turns: number,
  targetTokens: number,
  seed: number,
  system = SYSTEM,
): Promise<number> {
  if (turns < 2) return 0;
  return fitChars(
    (chars) => renderedTokens(engine, toolConversation(createPrng(seed), turns, chars, system), false),
    targetTokens,
  );
}

/** A long system prompt whose rendered opening (system + task) is about `targetTokens` long. */
export async function fitSystemPrompt(engine: EngineCaller, targetTokens: number, seed: number): Promise<string> {
  const prompt = (chars: number): string => longSystemPrompt(createPrng(seed), chars);
  const chars = await fitChars(
    (c) =>
      renderedTokens(
        engine,
        [
          { role: 'system', content: prompt(c) },
          { role: 'user', content: GROUP_TASK },
        ],
        true,
      ),
    targetTokens,
  );
  return prompt(chars);
}

/** Synthetic episodes with rewards from the prng; each its own task unless `groupKey` is given. */
export async function syntheticEpisodes(
  engine: EngineCaller,
  opts: {
    prefix: string;
    count: number;
    turns: number;
    toolChars: number;
    seed: number;
    eosId: number;
    system?: string;
    task?: string;
    groupKey?: string;
  },
): Promise<ScoredEpisode[]> {
  const prng = createPrng(opts.seed);
  const out: ScoredEpisode[] = [];
  for (let i = 0; i < opts.count; i++) {
    const episodeId = `${opts.prefix}${i}`;
    const messages = toolConversation(prng.fork(episodeId), opts.turns, opts.toolChars, opts.system, opts.task);
    const timelines = await synthesizeCalls(engine, messages, [CALC_TOOL], episodeId, opts.eosId);
    out.push({ episodeId, groupKey: opts.groupKey ?? episodeId, reward: prng.next(), timelines });
  }
  return out;
}

/** Played episodes as scored episodes; `groupOf` maps a played episode to its task group. */
export function scoredFromPlayed<T>(
  played: readonly PlayedEpisode<T>[],
  groupOf: (p: PlayedEpisode<T>) => string,
): ScoredEpisode[] {
  return played.map((p) => ({
    episodeId: p.episodeId,
    groupKey: groupOf(p),
    reward: p.result.reward,
    timelines: p.calls,
  }));
}
