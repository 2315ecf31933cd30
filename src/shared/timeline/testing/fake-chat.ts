// Test support: a tiny deterministic tokenizer and Qwen-style chat template that render messages
// into prompt ids + per-message spans the way the engine's `render` does, and a fake model call
// whose sampled tokens may be segmented differently from the tokenizer's (re-tokenization drift).
import type { ChatMessage, Tool } from '../../chat';
import type { FinishReason, PromptSpan, Timeline } from '../types';

export const IM_START = 1;
export const IM_END = 2;
export const NL = 3;
/** A stop token the template never renders (a model stopping on `<|endoftext|>`). */
export const ENDOFTEXT = 4;
export const TOOL_CALL_OPEN = 20;
export const TOOL_CALL_CLOSE = 21;
const ROLE_TOKEN: Record<string, number> = { system: 10, user: 11, assistant: 12, tool: 13 };
const CHAR_BASE = 100;
const MERGE_BASE = 70_000;
const MERGES = [
  'th',
  'he',
  'in',
  'er',
  'an',
  're',
  'on',
  'at',
  'en',
  'nd',
  '12',
  '34',
  '":',
  '{"',
  'ca',
  'lc',
  'ex',
  'es',
];
const SPECIAL: Record<number, string> = {
  [IM_START]: '<|im_start|>',
  [IM_END]: '<|im_end|>',
  [NL]: '\n',
  [ENDOFTEXT]: '<|endoftext|>',
  [TOOL_CALL_OPEN]: '<tool_call>',
  [TOOL_CALL_CLOSE]: '</tool_call>',
};

/** Encodes text, merging a mergeable pair when `merge(k)` says so for the k-th opportunity. */
export function encodeWith(text: string, merge: (k: number) => boolean): number[] {
  const ids: number[] = [];
  let k = 0;
  for (let i = 0; i < text.length;) {
    const pair = MERGES.indexOf(text.slice(i, i + 2));
    if (i + 1 < text.length && pair >= 0 && merge(k++)) {
      ids.push(MERGE_BASE + pair);
      i += 2;
    } else {
      ids.push(CHAR_BASE + text.charCodeAt(i));
      i += 1;
    }
  }
  return ids;
}

/** The tokenizer: greedy, always merging. */
export const encode = (text: string): number[] => encodeWith(text, () => true);

/** A deterministic "random" segmentation (drift) of the same text. */
export const encodeDrifted = (text: string, seed: number): number[] =>
  encodeWith(text, (k) => (seed + k * 7) % 3 !== 0);

export function decode(ids: readonly number[]): string {
  return ids
    .map(
      (id) =>
        SPECIAL[id] ??
        (id >= MERGE_BASE
          ? (MERGES[id - MERGE_BASE] ?? '?')
          : id >= CHAR_BASE
            ? String.fromCharCode(id - CHAR_BASE)
            : `<${id}>`),
    )
    .join('');
}

function toolCallText(args: string, name: string): string {
  let parsed: unknown = args;
  try {
    parsed = JSON.parse(args);
  } catch {
    // unparseable arguments are rendered raw, as the engine does
  }
  return JSON.stringify({ name, arguments: parsed });
}

/** The tokens of an assistant turn's body (content, then tool calls), segmented by `enc`. */
export function assistantBody(message: ChatMessage, enc: (text: string) => number[] = encode): number[] {
  const ids = enc(message.content ?? '');
  for (const call of message.tool_calls ?? [])
    ids.push(TOOL_CALL_OPEN, ...enc(toolCallText(call.function.arguments, call.function.name)), TOOL_CALL_CLOSE);
  return ids;
}

const toolsText = (tools: readonly Tool[]): string => `# Tools\n${JSON.stringify(tools)}`;

/** Renders messages (+ tools) with the generation prompt, like the engine's `render`. */
export function render(
  messages: readonly ChatMessage[],
  tools: readonly Tool[] | null,
): { ids: number[]; spans: PromptSpan[] } {
  const ids: number[] = [];
  const spans: PromptSpan[] = [];
  const add = (messageIndex: number, role: string, tokens: number[]): void => {
    spans.push({ messageIndex, role, start: ids.length, end: ids.length + tokens.length });
    ids.push(...tokens);
  };
  const toolBlock = tools !== null && tools.length > 0 ? toolsText(tools) : null;
  if (toolBlock !== null && messages[0]?.role !== 'system')
    add(-1, 'system', [IM_START, ROLE_TOKEN.system ?? 0, NL, ...encode(toolBlock), IM_END, NL]);
  messages.forEach((m, i) => {
    let body: number[];
    if (m.role === 'assistant') body = assistantBody(m);
    else if (i === 0 && m.role === 'system' && toolBlock !== null) body = encode(`${m.content ?? ''}\n\n${toolBlock}`);
    else body = encode(m.content ?? '');
    add(i, m.role, [IM_START, ROLE_TOKEN[m.role] ?? 0, NL, ...body, IM_END, NL]);
  });
  add(-2, 'generation_prompt', [IM_START, ROLE_TOKEN.assistant ?? 0, NL]);
  return { ids, spans };
}

export interface CallSpec {
  id: string;
  episodeId: string;
  callIndex: number;
  agent?: string;
  messages: ChatMessage[];
  tools?: Tool[] | null;
  /** What the model says (for `length`: the content it would have said; it gets cut). */
  reply: ChatMessage;
  finishReason?: FinishReason;
  /** Segment the sampled tokens differently from the tokenizer (seeded). */
  driftSeed?: number;
  /** `length`: how many tokens were sampled before the cut. */
  keepTokens?: number;
  /** The stop token sampled (default `<|im_end|>`). */
  stopToken?: number;
  weightVersion?: number;
}

/** A recorded call: renders the prompt, "samples" the reply and gives each token a logprob. */
export function fakeCall(spec: CallSpec): Timeline {
  const tools = spec.tools ?? null;
  const { ids, spans } = render(spec.messages, tools);
  const enc = spec.driftSeed === undefined ? encode : (text: string) => encodeDrifted(text, spec.driftSeed ?? 0);
  const finishReason = spec.finishReason ?? 'stop';
  let outputIds = assistantBody(spec.reply, enc);
  let output: ChatMessage = spec.reply;
  if (finishReason === 'length') {
    outputIds = outputIds.slice(0, Math.max(1, Math.min(spec.keepTokens ?? outputIds.length, outputIds.length)));
    output = { role: 'assistant', content: decode(outputIds) };
  } else outputIds.push(spec.stopToken ?? IM_END);
  const salt = spec.callIndex * 1000 + spec.id.length;
  return {
    id: spec.id,
    episodeId: spec.episodeId,
    agent: spec.agent ?? 'default',
    callIndex: spec.callIndex,
    messages: spec.messages,
    tools,
    promptIds: ids,
    promptSpans: spans,
    outputIds,
    outputLogprobs: outputIds.map((_, i) => -(((salt + i * 37) % 997) + 1) / 113),
    finishReason,
    output,
    weightVersion: spec.weightVersion ?? 0,
    createdAt: 1_000 + spec.callIndex,
  };
}
