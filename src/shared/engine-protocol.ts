// The worker ⇄ engine contract (gpu-worker/engine/PROTOCOL.md, protocol v2): one zod schema per
// method's params and result, plus the delta frames of streamed generations, so the TypeScript side
// parses every frame the Python engine sends.
import { z } from 'zod';
import { ChatMessageSchema, ToolSchema } from './chat';
import { syncMethods, type SyncParams } from './engine-sync-protocol';
import { WireErrorSchema } from './result';

const Int = z.number().int();
const Ids = z.array(Int);

export const TrainingPlanSchema = z.object({
  mode: z.enum(['full', 'lora']),
  lora: z.object({ r: Int, alpha: z.number(), targetModules: z.array(z.string()).nullable() }).nullable(),
  activationCheckpointing: z.boolean(),
  /** The learning rate suggested for this model size and mode (the worker uses it unless --lr is given). */
  lr: z.number().positive(),
  reason: z.string(),
  estimateBytes: Int,
  budgetBytes: Int,
  trainableParams: Int,
  breakdown: z.record(z.string(), Int),
});
export type TrainingPlan = z.infer<typeof TrainingPlanSchema>;
/** The engine's generation settings (`configure`'s result; `info.serving`). */
export const ServingSummarySchema = z.object({
  /** The path generations take: `static` only for a model the continuous batcher cannot reproduce. */
  mode: z.enum(['continuous', 'static']),
  /** False for a model the continuous batcher cannot reproduce (then static; every sampling parameter kept). */
  continuous: z.boolean().optional(),
  /** Why the loaded model is served on the static path (null: it is not). */
  fallback: z.string().nullable().optional(),
  maxRows: Int.optional(),
  prefillTokens: Int.optional(),
  kvCacheBytes: Int.optional(),
  prefixCacheBytes: Int.optional(),
  blockTokens: Int.optional(),
  /** Rows kept above maxRows for short calls (at most shortTokens new tokens); 0: arrival order only. */
  shortRows: Int.optional(),
  shortTokens: Int.optional(),
  /** Key + value bytes one token takes in the KV cache (all layers). */
  bytesPerToken: Int.optional(),
});
export type ServingSummary = z.infer<typeof ServingSummarySchema>;

export const ConfigureParamsSchema = z.object({
  maxRows: Int.positive().optional(),
  prefillTokens: Int.positive().optional(),
  kvCacheBytes: Int.nonnegative().optional(),
  prefixCacheBytes: Int.nonnegative().optional(),
  blockTokens: Int.positive().optional(),
  shortRows: Int.nonnegative().optional(),
  shortTokens: Int.positive().optional(),
});
export type ConfigureParams = z.infer<typeof ConfigureParamsSchema>;

export const EngineInfoSchema = z.object({
  loaded: z.boolean(),
  model: z.string().nullable(),
  device: z.string(),
  dtype: z.string(),
  params: Int,
  trainableParams: Int,
  vocabSize: Int,
  contextLength: Int,
  weightVersion: Int,
  lora: z.boolean(),
  threads: Int,
  torch: z.string(),
  transformers: z.string(),
  eosTokenIds: Ids,
  padTokenId: Int,
  /** Training side (gpu-worker/engine/PROTOCOL.md): the engine's ranks and their process ids. */
  worldSize: Int.positive().optional(),
  rankPids: Ids.optional(),
  /** Bytes of rank 0's full inference copy under FSDP (0: none kept). */
  inferenceCopyBytes: Int.optional(),
  /** How train steps run for the loaded model: the tree path it takes, chunked logprobs, checkpointing. */
  treeAttention: z.enum(['segments', 'dense']).optional(),
  chunkedLogprobs: z.boolean().optional(),
  activationCheckpointing: z.boolean().optional(),
  /** The load-time plan: what was chosen from the parameter count and the device memory, and why. */
  plan: TrainingPlanSchema.optional(),
  serving: ServingSummarySchema.optional(),
  role: z.enum(['trainer', 'replica']).optional(),
});
export type EngineInfo = z.infer<typeof EngineInfoSchema>;

export const LoraOptionsSchema = z.object({
  r: Int.positive(),
  alpha: z.number().positive(),
  dropout: z.number().min(0).max(1).optional(),
  targetModules: z.array(z.string()).optional(),
});
export type LoraOptions = z.infer<typeof LoraOptionsSchema>;

export const TrainModeSchema = z.enum(['auto', 'full', 'lora']);
export type TrainMode = z.infer<typeof TrainModeSchema>;

export const LoadParamsSchema = z.object({
  path: z.string(),
  device: z.enum(['auto', 'cpu', 'cuda']).optional(),
  dtype: z.enum(['auto', 'float32', 'bfloat16']).optional(),
  lora: LoraOptionsSchema.optional(),
  seed: Int.optional(),
  threads: Int.positive().optional(),
  /** Full fine-tune or LoRA; `auto` (default) picks from the parameter count and the device memory. */
  mode: TrainModeSchema.optional(),
  /** Absent: on from 200M parameters, or when the step would not fit otherwise. */
  activationCheckpointing: z.boolean().optional(),
  /** Planning hints: the train_step micro-batch budget and the KL coefficient (> 0 budgets a reference). */
  microBatchTokens: Int.positive().optional(),
  klCoef: z.number().min(0).optional(),
  /** Bytes a rank may use, instead of the device's free memory. */
  memoryBudgetBytes: Int.positive().optional(),
  /** A chat template replacing the folder's own (--chat-template, the keep-reasoning variant). */
  chatTemplate: z.string().min(1).optional(),
  /** Replies keep special tokens (Harmony's `<|channel|>` …), less the stop tokens: the format is made of them. */
  decodeSpecialTokens: z.boolean().optional(),
  /** Tool-call `arguments` reach the template as JSON text (DeepSeek-V3's concatenates them); null content stays. */
  toolArgumentsAsText: z.boolean().optional(),
  /** `replica`: a rollout replica (inference only, serving dtype; weights from the trainer's sync). */
  role: z.enum(['trainer', 'replica']).optional(),
  /** FSDP: false = rank 0 keeps no full inference copy (rollout replicas generate); default true. */
  inferenceCopy: z.boolean().optional(),
});
export type LoadParams = z.infer<typeof LoadParamsSchema>;

export const SpanSchema = z.object({ messageIndex: Int, role: z.string(), start: Int, end: Int });
export type Span = z.infer<typeof SpanSchema>;

export const RenderParamsSchema = z.object({
  messages: z.array(ChatMessageSchema),
  tools: z.array(ToolSchema).nullable().optional(),
  addGenerationPrompt: z.boolean().optional(),
});
export type RenderParams = z.infer<typeof RenderParamsSchema>;
export const RenderResultSchema = z.object({ tokenIds: Ids, spans: z.array(SpanSchema), text: z.string() });
export type RenderResult = z.infer<typeof RenderResultSchema>;

export const GenerateRequestSchema = z.object({
  promptIds: Ids,
  maxTokens: Int.positive(),
  temperature: z.number().min(0),
  topP: z.number().gt(0).max(1).optional(),
  stopIds: Ids.optional(),
  /** Stop strings (OpenAI `stop`): the reply ends with the token that completes one; `text` ends before it. */
  stop: z.array(z.string().min(1).max(1024)).max(16).optional(),
  seed: Int.optional(),
});
export type GenerateRequest = z.infer<typeof GenerateRequestSchema>;
export interface GenerateParams {
  requests: GenerateRequest[];
  /** Send delta frames as tokens are produced (continuous mode). */
  stream?: boolean;
}
export const GenerationSchema = z.object({
  tokenIds: Ids,
  /** Raw (temperature-1, unfiltered) log-probabilities of the sampled tokens. */
  logprobs: z.array(z.number()),
  finishReason: z.enum(['stop', 'length']),
  text: z.string(),
  promptTokens: Int.optional(),
  /** Prompt tokens served from the engine's prefix KV cache (not computed again). */
  cachedTokens: Int.optional(),
  /** Weights swapped in mid-generation: [index of the first token sampled by it, weight version] per swap. */
  versionSpans: z.array(z.tuple([Int.nonnegative(), Int])).optional(),
});
export type Generation = z.infer<typeof GenerationSchema>;

/** A streamed generate's delta frame body: new tokens of request `index` and the text now visible. */
export const GenerateDeltaSchema = z.object({
  index: Int.nonnegative(),
  tokenIds: Ids,
  logprobs: z.array(z.number()),
  text: z.string(),
});
export type GenerateDelta = z.infer<typeof GenerateDeltaSchema>;
export const GenerateResultSchema = z.object({ results: z.array(GenerationSchema), weightVersion: Int });
export type GenerateResult = z.infer<typeof GenerateResultSchema>;

/**
 * Tree-packed layout (PROTOCOL.md, "Tree-packed sequences"): `parents[t]` is token t's parent
 * (-1 at the root, DFS pre-order), `positions[t]` its depth (optional, derived when absent). A
 * token attends to its ancestors only and is predicted from the logits at its parent.
 */
export const TreeLayoutSchema = z.object({
  parents: z.array(Int.min(-1)).optional(),
  positions: z.array(Int.nonnegative()).optional(),
});
export type TreeLayout = z.infer<typeof TreeLayoutSchema>;

export const LogprobsSequenceSchema = z.object({ tokenIds: Ids }).extend(TreeLayoutSchema.shape);
export type LogprobsSequence = z.infer<typeof LogprobsSequenceSchema>;
/**
 * A teacher's `topK` most likely tokens at each position of a sequence and their logprobs, most likely
 * first (empty rows at the root): what `logprobs` adds with `topK`, what a distilling sample carries.
 */
export const TopLogprobsSchema = z.object({ ids: z.array(Ids), logprobs: z.array(z.array(z.number())) });
export type TopLogprobs = z.infer<typeof TopLogprobsSchema>;
/** The most tokens per position `logprobs` answers with `topK` (agentjet_engine/scoring.py MAX_TOP_K). */
export const MAX_TOP_K = 64;
export const LogprobsResultSchema = z.object({
  logprobs: z.array(z.array(z.number())),
  top: z.array(TopLogprobsSchema).optional(),
});
export const DecodeResultSchema = z.object({ texts: z.array(z.string()) });

export const TrainSampleSchema = z.object({
  tokenIds: Ids,
  lossMask: z.array(z.union([z.literal(0), z.literal(1)])),
  advantages: z.union([z.number(), z.array(z.number())]),
  rolloutLogprobs: z.array(z.number()),
  /** Tree-packed samples only (see `TreeLayoutSchema`). */
  ...TreeLayoutSchema.shape,
  /**
   * Per-token loss weight (1 when absent): how many unmerged trained occurrences the token stands
   * for. The step's loss is Σ weights·loss / Σ weights over the masked tokens of all samples.
   */
  weights: z.array(z.number().nonnegative()).optional(),
  /** On-policy distillation from a teacher's top-k: its `logprobs` `top` for these tokens (with `distillCoef`). */
  teacherTop: TopLogprobsSchema.optional(),
});
export type TrainSample = z.infer<typeof TrainSampleSchema>;

export const TrainHyperSchema = z.object({
  lr: z.number().positive(),
  clipLow: z.number().min(0).optional(),
  clipHigh: z.number().min(0).optional(),
  klCoef: z.number().min(0).optional(),
  maxGradNorm: z.number().positive().optional(),
  microBatchTokens: Int.positive().optional(),
  /** Compute loss, stats and gradient norm only: no optimizer step, no weight-version bump. */
  dryRun: z.boolean().optional(),
  /**
   * Tree samples: `auto` (segments where the model takes them), the exact `segments` path, or the `dense` reference
   * mask.
   */
  treeAttention: z.enum(['auto', 'segments', 'dense']).optional(),
  /** false: logprobs from full logits (the reference path), for comparisons. */
  chunkedLogprobs: z.boolean().optional(),
  /** Override the load-time activation checkpointing for this step. */
  activationCheckpointing: z.boolean().optional(),
  /** Off-policy correction of the behaviour-vs-trainer mismatch (agentjet_engine/corrections.py). */
  correction: z.enum(['none', 'decoupled', 'tis', 'mis']).optional(),
  correctionCap: z.number().min(1).optional(),
  correctionLow: z.number().min(0).max(1).optional(),
  correctionHigh: z.number().min(1).optional(),
  /** Weight of the teacher-top-k KL term (every sample then carries `teacherTop`; agentjet_engine/distill.py). */
  distillCoef: z.number().min(0).optional(),
});
export type TrainHyper = z.infer<typeof TrainHyperSchema>;

export const TrainStatsSchema = z.object({
  loss: z.number(),
  pgLoss: z.number(),
  klLoss: z.number(),
  /** Mean teacher-top-k KL of the trained tokens (0 without `distillCoef`). */
  distillKl: z.number().optional(),
  clipFraction: z.number(),
  approxKl: z.number(),
  /** Mean k3 KL between the behaviour policy (what sampled) and the trainer's, and the correction's share of tokens. */
  mismatchKl: z.number().optional(),
  correction: z.string().optional(),
  correctedFraction: z.number().optional(),
  entropy: z.number(),
  gradNorm: z.number(),
  tokens: Int,
  /** Masked positions (a shared tree token counts once). */
  trainedTokens: Int,
  /** Σ weights over the masked positions: the loss's denominator (= trainedTokens without weights). */
  lossWeight: z.number().optional(),
  microBatches: Int,
  /** True when the step was a dry run (nothing was updated). */
  dryRun: z.boolean().optional(),
  seconds: z.number(),
  weightVersion: Int,
  activationCheckpointing: z.boolean().optional(),
  treeAttention: z.enum(['segments', 'dense']).optional(),
  chunkedLogprobs: z.boolean().optional(),
  worldSize: Int.optional(),
  /**
   * Peak memory of rank 0 during the step (CUDA: allocated tensors; Linux CPU: resident set); null where unmeasured.
   */
  peakMemoryBytes: Int.nullable().optional(),
  /** Per rank: bytes of its parameters (its shards under FSDP), trainable ones, optimizer states, and its step peak. */
  rankMemory: z
    .array(
      z.object({
        paramBytes: Int,
        trainableParamBytes: Int,
        optimizerBytes: Int,
        peakBytes: Int.nullable(),
        beforeBytes: Int.nullable(),
      }),
    )
    .optional(),
});
export type TrainStats = z.infer<typeof TrainStatsSchema>;

export const SaveResultSchema = z.object({ path: z.string(), weightVersion: Int, bytes: Int });
export type SaveResult = z.infer<typeof SaveResultSchema>;

export const CancelResultSchema = z.object({ cancelled: z.boolean() });

export const BatchStatsSchema = z.object({
  active: Int,
  decoding: Int,
  waiting: Int,
  kvBytes: Int,
  kvBudgetBytes: Int,
  steps: Int,
  decodeTokens: Int,
  prefillTokens: Int,
  meanDecodeBatch: z.number(),
  forwardSeconds: z.number(),
  sequences: Int,
  maxRows: Int,
});
export type BatchStats = z.infer<typeof BatchStatsSchema>;

export const PrefixCacheStatsSchema = z.object({
  enabled: z.boolean(),
  blockTokens: Int,
  blocks: Int,
  bytes: Int,
  capacityBytes: Int,
  budgetBytes: Int,
  lookups: Int,
  hits: Int,
  hitRate: z.number(),
  reusedTokens: Int,
  prefilledTokens: Int,
  tokenHitRate: z.number(),
  insertedBlocks: Int,
  evictions: Int,
  clears: Int,
});
export type PrefixCacheStats = z.infer<typeof PrefixCacheStatsSchema>;

export const CacheStatsSchema = z.object({
  mode: z.enum(['continuous', 'static']),
  batch: BatchStatsSchema.nullable(),
  prefixCache: PrefixCacheStatsSchema.nullable(),
});
export type CacheStats = z.infer<typeof CacheStatsSchema>;

/** Every method: its params type and the schema its result is parsed with. */
export const engineMethods = {
  info: { result: EngineInfoSchema },
  load: { result: EngineInfoSchema },
  render: { result: RenderResultSchema },
  generate: { result: GenerateResultSchema },
  logprobs: { result: LogprobsResultSchema },
  decode: { result: DecodeResultSchema },
  train_step: { result: TrainStatsSchema },
  save: { result: SaveResultSchema },
  restore: { result: EngineInfoSchema },
  cancel: { result: CancelResultSchema },
  configure: { result: ServingSummarySchema },
  cache_stats: { result: CacheStatsSchema },
  ...syncMethods,
} as const;
export type EngineMethod = keyof typeof engineMethods;

export interface EngineParams extends SyncParams {
  info: Record<string, never>;
  load: LoadParams;
  render: RenderParams;
  generate: GenerateParams;
  logprobs: { sequences: LogprobsSequence[]; topK?: number };
  decode: { sequences: number[][]; skipSpecialTokens?: boolean };
  train_step: { samples: TrainSample[]; hyper: TrainHyper };
  save: { path: string };
  restore: { path: string };
  cancel: { requestId: number | string };
  configure: ConfigureParams;
  cache_stats: Record<string, never>;
}
export type EngineResult<M extends EngineMethod> = z.infer<(typeof engineMethods)[M]['result']>;

/** Methods that run exclusively in the engine (generation drained first; PROTOCOL.md "Concurrency"). */
export const EXCLUSIVE_METHODS: readonly EngineMethod[] = ['load', 'train_step', 'save', 'restore'];

/** A frame from the engine, before its result is parsed per method: a response or a delta. */
export const EngineResponseSchema = z.union([
  z.object({ id: z.union([Int, z.string(), z.null()]), result: z.unknown() }).strict(),
  z.object({ id: z.union([Int, z.string(), z.null()]), error: WireErrorSchema }).strict(),
  z.object({ id: z.union([Int, z.string()]), delta: GenerateDeltaSchema }).strict(),
]);
export type EngineResponse = z.infer<typeof EngineResponseSchema>;
