// Timeline-merging contracts (DESIGN §5): zod schemas for one recorded LLM call (`Timeline`),
// the merge options, the merged training samples (linear and tree-packed) and merge statistics.
// Every type here crosses processes (worker → engine, worker → workbench), so each has a schema.
import { z } from 'zod';
import { ChatMessageSchema, ToolSchema } from '../chat';
import { checkLinearSample, checkTimeline, checkTreeSample } from './validate';

const TokenIdSchema = z.number().int().nonnegative();
const CountSchema = z.number().int().nonnegative();

/** `messageIndex` of template text that belongs to no message (e.g. a tools-only system turn). */
export const TEMPLATE_SPAN_INDEX = -1;
/** `messageIndex` of the generation prompt (`<|im_start|>assistant\n`) that ends every prompt. */
export const GENERATION_PROMPT_SPAN_INDEX = -2;

/** A half-open token range `[start, end)` of the prompt that renders one message. */
export const PromptSpanSchema = z.object({
  messageIndex: z.number().int().min(GENERATION_PROMPT_SPAN_INDEX),
  role: z.string(),
  start: CountSchema,
  end: CountSchema,
});
export type PromptSpan = z.infer<typeof PromptSpanSchema>;

export const FinishReasonSchema = z.enum(['stop', 'length']);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

/**
 * One LLM call of an episode, recorded token-exactly. `promptSpans` cover `promptIds`
 * contiguously, one span per message plus template-only (-1) and generation-prompt (-2) spans.
 * `outputIds` are the sampled tokens (with the stop token when `finishReason` is `stop`).
 */
export const TimelineSchema = z
  .object({
    id: z.string().min(1),
    episodeId: z.string().min(1),
    agent: z.string().default('default'),
    /** Order of the call within its episode. */
    callIndex: CountSchema,
    /** The request's messages. */
    messages: z.array(ChatMessageSchema),
    /** The request's tools; a change of tools breaks a chain (`different_tools`). */
    tools: z.array(ToolSchema).nullable().default(null),
    promptIds: z.array(TokenIdSchema).min(1),
    promptSpans: z.array(PromptSpanSchema),
    outputIds: z.array(TokenIdSchema),
    outputLogprobs: z.array(z.number()),
    finishReason: FinishReasonSchema,
    /** The parsed assistant message of the output. */
    output: ChatMessageSchema,
    /** The weight version that sampled the first output token (the oldest, should it span a swap). */
    weightVersion: CountSchema,
    /** Weights swapped in mid-generation (async, `--inflight swap`): [first output index, version] per swap. */
    versionSpans: z.array(z.tuple([CountSchema, CountSchema])).optional(),
    createdAt: z.number(),
  })
  .superRefine((t, ctx) => {
    for (const message of checkTimeline(t)) ctx.addIssue({ code: 'custom', message });
  });
export type Timeline = z.infer<typeof TimelineSchema>;
/** A timeline before defaults are applied (`agent`, `tools` optional). */
export type TimelineInput = z.input<typeof TimelineSchema>;

export const MergeModeSchema = z.enum(['none', 'linear', 'tree']);
export type MergeMode = z.infer<typeof MergeModeSchema>;
export const MatchLevelSchema = z.enum(['token', 'text']);
export type MatchLevel = z.infer<typeof MatchLevelSchema>;

export const MergeOptionsSchema = z.object({
  mode: MergeModeSchema.default('linear'),
  level: MatchLevelSchema.default('token'),
  /** episodeId → taskId, copied onto the samples (timelines are recorded before the task is known). */
  taskIds: z.record(z.string(), z.string()).optional(),
});
export type MergeOptions = z.infer<typeof MergeOptionsSchema>;

/**
 * A run of generated (trained) tokens in a sample, `[start, end)` in the sample's token list,
 * and the call that sampled them. Every trained occurrence lies in exactly one span; a call's
 * tokens may be split over several runs in a tree sample (at branch points).
 */
export const GeneratedSpanSchema = z.object({
  timelineId: z.string(),
  episodeId: z.string(),
  weightVersion: CountSchema,
  start: CountSchema,
  end: CountSchema,
});
export type GeneratedSpan = z.infer<typeof GeneratedSpanSchema>;

const LossMaskSchema = z.array(z.union([z.literal(0), z.literal(1)]));
export type LossMask = z.infer<typeof LossMaskSchema>;

const sampleFields = {
  taskId: z.string().optional(),
  tokenIds: z.array(TokenIdSchema),
  /** 1 trains the prediction of the token (linear: from the tokens before it; tree: from its ancestors). */
  lossMask: LossMaskSchema,
  /** The sampled logprob of each masked token; 0 where the mask is 0. */
  rolloutLogprobs: z.array(z.number()),
  spans: z.array(GeneratedSpanSchema),
  /** Every call whose generated tokens this sample trains, in call order. */
  absorbedTimelineIds: z.array(z.string()),
};

/** One linear sequence: a chain of calls, each absorbed into the last one's token sequence. */
export const LinearSampleSchema = z
  .object({ kind: z.literal('linear'), episodeId: z.string(), ...sampleFields })
  .superRefine((s, ctx) => {
    for (const message of checkLinearSample(s)) ctx.addIssue({ code: 'custom', message });
  });
export type LinearSample = z.infer<typeof LinearSampleSchema>;

/**
 * A prefix tree of token sequences, flattened in DFS pre-order. Token i attends to its ancestors
 * and itself only: j is an ancestor-or-self of i iff `j <= i < subtreeEnd[j]` (see
 * `treeSubtreeEnds`). Its position id is its depth (`positions`), and its logprob is predicted
 * from the logits at `parents[i]`. `weights[i]` is how many unmerged trained occurrences the
 * token stands for (0 where unmasked): the exact unmerged token-mean loss is
 * Σ weights·loss / Σ weights over the step.
 */
export const TreeSampleSchema = z
  .object({
    kind: z.literal('tree'),
    episodeIds: z.array(z.string()).min(1),
    ...sampleFields,
    /** Parent token index; -1 for the root (index 0 only). */
    parents: z.array(z.number().int().min(-1)),
    /** Depth of the token: the position id to use. */
    positions: z.array(CountSchema),
    weights: z.array(CountSchema),
  })
  .superRefine((s, ctx) => {
    for (const message of checkTreeSample(s)) ctx.addIssue({ code: 'custom', message });
  });
export type TreeSample = z.infer<typeof TreeSampleSchema>;

export const MergedSampleSchema = z.discriminatedUnion('kind', [LinearSampleSchema, TreeSampleSchema]);
export type MergedSample = z.infer<typeof MergedSampleSchema>;

/**
 * Why a call started a new chain (chains.ts). `template_dropped_reasoning`: the history is the same
 * message by message, but the chat template no longer renders the reasoning of an earlier turn
 * (Qwen3's and gpt-oss's drop it before the last user message; `--keep-reasoning` keeps it).
 */
export const BreakCauseSchema = z.enum([
  'token_drift',
  'rewritten_history',
  'different_agent',
  'different_tools',
  'template_dropped_reasoning',
]);
export type BreakCause = z.infer<typeof BreakCauseSchema>;
export const BREAK_CAUSES: readonly BreakCause[] = BreakCauseSchema.options;

/** Counts per cause, every cause present (a count missing from an older sender's answer is 0). */
const BreakCountsSchema = z
  .partialRecord(BreakCauseSchema, z.number().int().nonnegative())
  .transform((c): Record<BreakCause, number> => ({
    token_drift: c.token_drift ?? 0,
    rewritten_history: c.rewritten_history ?? 0,
    different_agent: c.different_agent ?? 0,
    different_tools: c.different_tools ?? 0,
    template_dropped_reasoning: c.template_dropped_reasoning ?? 0,
  }));

/** A call that started a new chain instead of extending one, and why. */
export const ChainBreakSchema = z.object({
  episodeId: z.string(),
  timelineId: z.string(),
  cause: BreakCauseSchema,
});
export type ChainBreak = z.infer<typeof ChainBreakSchema>;

/** Merge statistics of one episode, or summed over a step with `sumStats`. */
export const MergeStatsSchema = z.object({
  episodes: CountSchema,
  callsIn: CountSchema,
  samplesOut: CountSchema,
  /** Σ over calls of prompt + output length: what training each call separately costs. */
  tokensBefore: CountSchema,
  /** Σ over samples of their token count. */
  tokensAfter: CountSchema,
  /** Masked positions in the samples (a shared tree token counts once). */
  tokensTrained: CountSchema,
  /** Σ over calls of output length (= Σ of the samples' weights in tree mode). */
  tokensGenerated: CountSchema,
  /** tokensBefore / tokensAfter (1 when there are no tokens). */
  compressionRatio: z.number().nonnegative(),
  breaks: z.array(ChainBreakSchema),
  breakCounts: BreakCountsSchema,
});
export type MergeStats = z.infer<typeof MergeStatsSchema>;

export const EpisodeMergeStatsSchema = MergeStatsSchema.extend({ episodeId: z.string() });
export type EpisodeMergeStats = z.infer<typeof EpisodeMergeStatsSchema>;
