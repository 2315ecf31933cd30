// The swarm server's HTTP contract (DESIGN §4.1): zod schemas for the OpenAI-compatible chat
// request, the episode/client lifecycle, the runtime config and the status snapshot. Imported by
// the server (gpu-worker), the SDKs and the workbench, so the two ends cannot drift.
import { z } from 'zod';
import { RolloutStatusSchema, StepHealthSchema } from './rollout-health';
import { CacheStatsSchema } from './engine-protocol';
import { WireErrorSchema } from './result';
import { AlgoSchema, StrategySchema, TrainingConfigSchema } from './options/index';
import { MatchLevelSchema, MergedSampleSchema, MergeModeSchema, MergeStatsSchema } from './timeline/types';
import { IdSchema, TextSchema } from './wire-text';

export * from './wire-text';
export * from './chat-request';

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** The `type` field of an error body, as OpenAI clients expect it. */
export const ErrorTypes = {
  invalid: 'invalid_request_error',
  auth: 'authentication_error',
  notFound: 'not_found_error',
  conflict: 'conflict_error',
  unavailable: 'service_unavailable',
  internal: 'server_error',
} as const;

/** Every non-2xx answer of the worker: the shared `WireError`, plus a retry hint on 503 answers. */
export const ErrorBodySchema = z.object({
  error: WireErrorSchema.extend({
    /** Seconds to wait before retrying (503 answers; also in the Retry-After header). */
    retry_after_s: z.number().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// ---------------------------------------------------------------------------------------------
// Episodes and clients
// ---------------------------------------------------------------------------------------------

export const EpisodeKindSchema = z.enum(['train', 'eval']);
export type EpisodeKind = z.infer<typeof EpisodeKindSchema>;

export const ClaimRequestSchema = z.object({
  clientId: IdSchema,
  kind: EpisodeKindSchema.default('train'),
  taskId: IdSchema.optional(),
  /** The client code version that plays it (the runner's content hash; AGENTJET_CODE_VERSION). */
  codeVersion: IdSchema.optional(),
  /**
   * The role this episode plays in a game of several roles on one model (e.g. `proposer`, `solver`):
   * REINFORCE's baseline is the mean reward of the batch's episodes of the same role.
   */
  role: IdSchema.optional(),
  /** Inactivity timeout of this episode (bounded by the server). */
  timeoutS: z.number().positive().max(86_400).optional(),
});
export type ClaimRequest = z.input<typeof ClaimRequestSchema>;

export const ClaimResponseSchema = z.object({
  episodeId: z.string(),
  /** OpenAI base URL for this episode's calls (`…/v1`). */
  baseUrl: z.string(),
  /** The signed episode key: the `Authorization: Bearer` credential of the calls. */
  apiKey: z.string(),
  model: z.string(),
  weightVersion: z.number().int(),
  kind: EpisodeKindSchema,
  timeoutS: z.number(),
});
export type ClaimResponse = z.infer<typeof ClaimResponseSchema>;

/** A finite number (JSON has no NaN/Infinity; strings are refused, not coerced). */
export const FiniteSchema = z.number().refine(Number.isFinite, { message: 'must be a finite number' });

/**
 * The largest reward magnitude `end` accepts. Rewards far beyond any scale a policy gradient can
 * use (e.g. 1e308) would overflow the advantages of their whole batch to non-finite values.
 */
export const MAX_ABS_REWARD = 1e6;
export const RewardSchema = FiniteSchema.refine((r) => Math.abs(r) <= MAX_ABS_REWARD, {
  message: `must be between -${MAX_ABS_REWARD} and ${MAX_ABS_REWARD}`,
});

export const EndRequestSchema = z.object({
  taskId: IdSchema,
  reward: RewardSchema,
  success: z.boolean().optional(),
  metrics: z
    .record(IdSchema, FiniteSchema)
    .refine((m) => Object.keys(m).length <= 64, { message: 'at most 64 metrics' })
    .optional(),
});
export type EndRequest = z.infer<typeof EndRequestSchema>;

export const EndResponseSchema = z.object({
  episodeId: z.string(),
  accepted: z.literal(true),
  /** True when the episode joined the training pool (train episodes with at least one call). */
  pooled: z.boolean(),
  calls: z.number().int(),
});
export type EndResponse = z.infer<typeof EndResponseSchema>;

export const AbortRequestSchema = z.object({ reason: TextSchema.max(500).optional() });

export const EpisodeStatusSchema = z.enum(['open', 'ending', 'ended', 'aborted', 'expired']);
export type EpisodeStatus = z.infer<typeof EpisodeStatusSchema>;

export const RegisterClientRequestSchema = z.object({
  clientId: IdSchema.optional(),
  name: IdSchema.optional(),
  meta: z.record(IdSchema, z.union([TextSchema.max(500), z.number(), z.boolean()])).optional(),
});
export const RegisterClientResponseSchema = z.object({ clientId: z.string(), heartbeatS: z.number() });

/** Episode and call counts kept per client and for the whole worker. */
export const EpisodeCountersSchema = z.object({
  claimed: z.number().int(),
  ended: z.number().int(),
  aborted: z.number().int(),
  expired: z.number().int(),
  calls: z.number().int(),
  completionTokens: z.number().int(),
});

export const ClientInfoSchema = z.object({
  clientId: z.string(),
  name: z.string().optional(),
  active: z.boolean(),
  agreedSync: z.boolean(),
  firstSeenAt: z.number(),
  lastSeenAt: z.number(),
  counters: EpisodeCountersSchema.extend({ refused: z.number().int() }),
  openEpisodes: z.number().int(),
});
export type ClientInfo = z.infer<typeof ClientInfoSchema>;

export const EpisodeSummarySchema = z.object({
  episodeId: z.string(),
  clientId: z.string(),
  kind: EpisodeKindSchema,
  status: EpisodeStatusSchema,
  taskId: z.string().optional(),
  codeVersion: z.string().optional(),
  /** The role it played (the claim's `role`). */
  role: z.string().optional(),
  reward: z.number().optional(),
  success: z.boolean().optional(),
  reason: z.string().optional(),
  calls: z.number().int(),
  completionTokens: z.number().int(),
  malformedToolCalls: z.number().int(),
  createdAt: z.number(),
  lastActivityAt: z.number(),
  finishedAt: z.number().optional(),
  weightVersions: z.array(z.number().int()),
});
export type EpisodeSummary = z.infer<typeof EpisodeSummarySchema>;

// ---------------------------------------------------------------------------------------------
// Training config (runtime-changeable part) and status
// ---------------------------------------------------------------------------------------------

// Declared once in options/declarations.ts; re-exported here, where the protocol uses them.
export {
  AlgoSchema,
  StrategySchema,
  TRAINING_DEFAULTS,
  TrainingConfigPatchSchema,
  TrainingConfigSchema,
  type Strategy,
  type TrainingConfig,
} from './options/index';

export const WorkerStateSchema = z.enum([
  'starting',
  'running',
  'paused',
  'updating',
  'checkpointing',
  'recovering',
  'stopping',
  'failed',
]);
export type WorkerState = z.infer<typeof WorkerStateSchema>;

export const BatchProgressSchema = z.object({
  strategy: StrategySchema,
  ready: z.boolean(),
  /** Units counted toward the threshold (episodes, tasks, or agreeing clients). */
  current: z.number().int(),
  target: z.number().int(),
  unit: z.enum(['episodes', 'tasks', 'clients']),
  /** Human-readable detail, e.g. "3/8 tasks with 4 episodes". */
  detail: z.string(),
});
export type BatchProgress = z.infer<typeof BatchProgressSchema>;

export const EvalResultSchema = z.object({
  weightVersion: z.number().int(),
  episodes: z.number().int(),
  rewardMean: z.number(),
  successRate: z.number().nullable(),
});
export type EvalResult = z.infer<typeof EvalResultSchema>;

/**
 * Inference side of one step: the engine's prefix KV cache and batching over the generations since
 * the previous step (the inference-side twin of timeline merging). Absent from older workers.
 */
export const StepServingSchema = z.object({
  /** Prompt tokens the engine was asked to prefill… */
  promptTokens: z.number().int().nonnegative(),
  /** …of which it computed these… */
  prefilledTokens: z.number().int().nonnegative(),
  /** …and took these from the prefix cache. */
  reusedTokens: z.number().int().nonnegative(),
  /** reusedTokens / (reusedTokens + prefilledTokens). */
  hitRate: z.number(),
  /** Prefix cache size at the step. */
  cacheBytes: z.number().int().nonnegative(),
  evictions: z.number().int().nonnegative(),
  /** Sequences decoded together per engine step (mean). */
  meanBatch: z.number(),
  generatedTokens: z.number().int().nonnegative(),
});
export type StepServing = z.infer<typeof StepServingSchema>;

export const StepMetricsSchema = z.object({
  step: z.number().int(),
  weightVersion: z.number().int(),
  episodes: z.number().int(),
  tasks: z.number().int(),
  rewardMean: z.number(),
  /** Lowest and highest reward of the step's episodes (absent from workers and state files older than these fields). */
  rewardMin: z.number().optional(),
  rewardMax: z.number().optional(),
  successRate: z.number().nullable(),
  samples: z.number().int(),
  droppedZeroAdvantage: z.number().int(),
  droppedStale: z.number().int(),
  maxStaleness: z.number().int(),
  loss: z.number().nullable(),
  pgLoss: z.number().nullable(),
  klLoss: z.number().nullable(),
  clipFraction: z.number().nullable(),
  approxKl: z.number().nullable(),
  entropy: z.number().nullable(),
  gradNorm: z.number().nullable(),
  trainedTokens: z.number().int(),
  seconds: z.number(),
  /** On-policy distillation: the mean reverse-KL estimate (log π_student − log π_teacher) over the scored tokens. */
  distillReverseKl: z.number().optional(),
  /** Distillation from the teacher's top-k (--distill-top-k): the mean KL to its top-k distribution (trained on). */
  distillTopKl: z.number().optional(),
  /** On-policy distillation: the fraction of the step's samples that trained (--distill-keep). */
  distillKept: z.number().optional(),
  /** On-policy distillation: the fraction of the step's teacher sequences scored while the student generated. */
  distillPrefetched: z.number().optional(),
  serving: StepServingSchema.optional(),
  /** Run health: staleness, mismatch, correction, busy fractions, weight sync (rollout-health.ts). */
  health: StepHealthSchema.optional(),
});
export type StepMetrics = z.infer<typeof StepMetricsSchema>;

/** The serving side of `/swarm/v1/status`: the admission gate and the engine's batch and prefix-cache counters. */
export const ServingStatusSchema = z.object({
  /**
   * The engine's generation path for the loaded model: `continuous` (its continuous batcher and prefix
   * cache), or `static` (one left-padded batch per call: the fallback for a model the continuous
   * batcher cannot reproduce; every sampling parameter still applies) with the reason in `fallback`.
   */
  mode: z.enum(['continuous', 'static']),
  fallback: z.string().optional(),
  admitted: z.number().int(),
  completed: z.number().int(),
  cancelled: z.number().int(),
  failed: z.number().int(),
  inFlight: z.number().int(),
  waiting: z.number().int(),
  paused: z.boolean(),
  engine: CacheStatsSchema.nullable(),
  /** Rollout replicas and asynchronous updates (absent: generation runs in the trainer's engine). */
  rollout: RolloutStatusSchema.optional(),
});
export type ServingStatus = z.infer<typeof ServingStatusSchema>;

export const CountersSchema = EpisodeCountersSchema.extend({
  malformedToolCalls: z.number().int(),
  trainedEpisodes: z.number().int(),
  droppedEpisodes: z.number().int(),
  engineRestarts: z.number().int(),
});
export type Counters = z.infer<typeof CountersSchema>;

export const StatusSchema = z.object({
  state: WorkerStateSchema,
  step: z.number().int(),
  weightVersion: z.number().int(),
  model: z.string(),
  runDir: z.string(),
  uptimeS: z.number(),
  config: TrainingConfigSchema,
  progress: BatchProgressSchema,
  pool: z.object({
    episodes: z.number().int(),
    tasks: z.number().int(),
    /** Episodes held out by a quarantine (POST /swarm/v1/pool/quarantine); 0 from older workers. */
    quarantined: z.number().int().default(0),
  }),
  episodes: z.object({ open: z.number().int() }),
  counters: CountersSchema,
  clients: z.array(ClientInfoSchema),
  lastStep: StepMetricsSchema.nullable(),
  eval: z.array(EvalResultSchema),
  engine: z.object({
    alive: z.boolean(),
    device: z.string(),
    restarts: z.number().int(),
    lastError: z.string().nullable(),
  }),
  lastCheckpoint: z.object({ step: z.number().int(), at: z.number() }).nullable(),
  eventSeq: z.number().int(),
  serving: ServingStatusSchema.optional(),
});
export type Status = z.infer<typeof StatusSchema>;

/** How an episode was trained: the step, the weights it produced, its advantage and the merge settings used. */
export const TrainedInfoSchema = z.object({
  step: z.number().int(),
  weightVersion: z.number().int(),
  advantage: z.number(),
  algo: AlgoSchema,
  merge: MergeModeSchema,
  level: MatchLevelSchema,
});
export type TrainedInfo = z.infer<typeof TrainedInfoSchema>;

/**
 * `GET /swarm/v1/episodes/:id/merged`: the samples an update trained of the episode (`trained` says
 * how), or — not trained (yet) — a preview (`trained: null`): what an update under the worker's
 * current settings would train of it, its task group merged and packed as training does.
 */
export const MergedEpisodeAnswerSchema = z.object({
  samples: z.array(MergedSampleSchema),
  stats: MergeStatsSchema,
  /** Absent from workers older than this field (their samples are previews). */
  trained: TrainedInfoSchema.nullable().optional(),
});
export type MergedEpisodeAnswer = z.infer<typeof MergedEpisodeAnswerSchema>;

/** `<run-dir>/worker.json`, written once the worker serves: how to reach it (the workbench reads it). */
export const WorkerFileSchema = z.object({
  pid: z.number().int(),
  url: z.string(),
  port: z.number().int(),
  bootId: z.string(),
  startedAt: z.number(),
});
export type WorkerFile = z.infer<typeof WorkerFileSchema>;

/** `GET /health`: `ok` is false when the engine failed or the pool journal's last write failed (`journal` says why). */
export const HealthSchema = z.object({
  ok: z.boolean(),
  state: WorkerStateSchema,
  step: z.number().int(),
  model: z.string(),
  journal: z
    .object({ ok: z.boolean(), lastError: z.string().nullable(), lastErrorAt: z.number().nullable() })
    .optional(),
  /**
   * Served over HTTPS: the certificate's SHA-256 fingerprint (informational: a client pins what the handshake shows).
   */
  tls: z.object({ fingerprint256: z.string() }).optional(),
});
export type Health = z.infer<typeof HealthSchema>;
