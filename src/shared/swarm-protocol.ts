// The swarm server's HTTP contract (DESIGN §4.1): zod schemas for the OpenAI-compatible chat
// request, the episode/client lifecycle, the runtime config and the status snapshot. Imported by
// the server (gpu-worker), the SDKs and the workbench, so the two ends cannot drift.
import { z } from 'zod';
import { CacheStatsSchema } from './engine-protocol';
import { AlgoSchema, StrategySchema, TrainingConfigSchema } from './options/index';
import { MatchLevelSchema, MergedSampleSchema, MergeModeSchema, MergeStatsSchema } from './timeline/types';

// ---------------------------------------------------------------------------------------------
// Strings a client may send
// ---------------------------------------------------------------------------------------------

/** Lone UTF-16 surrogates (what broken UTF-8 turns into) and NUL are refused in every string. */
export function isCleanText(s: string): boolean {
  return !s.includes('\u0000') && !/[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));
}

/** Free text (message content, tool arguments): any well-formed text without NUL. */
export const TextSchema = z.string().refine(isCleanText, { message: 'must be well-formed text without NUL characters' });

export function hasNoControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

/** Identifiers chosen by clients (client ids, task ids, agent names): printable, no control characters. */
export const IdSchema = z
  .string()
  .min(1)
  .max(200)
  .refine(hasNoControlChars, { message: 'must not contain control characters' })
  .refine(isCleanText, { message: 'must be well-formed text' });

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

export const ErrorBodySchema = z.object({
  error: z.object({
    type: z.string(),
    code: z.string(),
    message: z.string(),
    /** Seconds to wait before retrying (503 answers; also in the Retry-After header). */
    retry_after_s: z.number().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible chat completions
// ---------------------------------------------------------------------------------------------

/**
 * Size limits of one inference request (README, "Request limits"): above them the server answers
 * 400 `invalid_request` at once, before any engine work, so no request can hold the engine long.
 */
export const REQUEST_LIMITS = {
  /** Messages in one conversation. */
  messages: 2048,
  /** Characters of one message's text (its content parts together, and each tool call's arguments). */
  messageChars: 1 << 20,
  /** Tool definitions. */
  tools: 128,
  /** Characters of one tool definition's JSON. */
  toolChars: 32 * 1024,
  /** Characters of all tool definitions' JSON together. */
  toolsChars: 256 * 1024,
} as const;

const tooLong = (what: string, limit: number): string => `${what} is longer than this server's limit of ${limit} characters`;

const TextPartSchema = z.object({ type: z.literal('text'), text: TextSchema });
/** OpenAI content: a string, an array of text parts, or null. */
const ContentSchema = z.union([TextSchema, z.array(TextPartSchema), z.null()]).optional();

export const RequestToolCallSchema = z.object({
  id: IdSchema,
  type: z.literal('function').default('function'),
  function: z.object({ name: IdSchema, arguments: TextSchema.max(REQUEST_LIMITS.messageChars, tooLong('a tool call\'s arguments', REQUEST_LIMITS.messageChars)) }),
});

export const RequestMessageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: ContentSchema,
    tool_calls: z.array(RequestToolCallSchema).nullable().optional(),
    tool_call_id: IdSchema.optional(),
    name: IdSchema.optional(),
  })
  .superRefine((m, ctx) => {
    // A tool message without tool_call_id is accepted (the engine renders it): envs answer an
    // unparseable call that way, since there is no call id to answer.
    if (m.tool_calls && m.tool_calls.length > 0 && m.role !== 'assistant') ctx.addIssue({ code: 'custom', message: 'only assistant messages carry tool_calls' });
    const chars = typeof m.content === 'string' ? m.content.length : (m.content ?? []).reduce((n, p) => n + p.text.length, 0);
    if (chars > REQUEST_LIMITS.messageChars) ctx.addIssue({ code: 'custom', path: ['content'], message: tooLong('the message', REQUEST_LIMITS.messageChars) });
  });
export type RequestMessage = z.infer<typeof RequestMessageSchema>;

export const RequestToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: IdSchema,
    description: TextSchema.optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: IdSchema }) }),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/**
 * The chat-completion request. Unknown OpenAI fields (penalties, `user`, `logprobs`, …) are
 * accepted and ignored; `n > 1` and structured `response_format`s are refused by the server.
 */
export const ChatCompletionRequestSchema = z.object({
  model: z.string().max(200).optional(),
  messages: z.array(RequestMessageSchema).min(1).max(REQUEST_LIMITS.messages, `at most ${REQUEST_LIMITS.messages} messages per request`),
  tools: opt(
    z
      .array(RequestToolSchema)
      .max(REQUEST_LIMITS.tools, `at most ${REQUEST_LIMITS.tools} tools per request`)
      .superRefine((tools, ctx) => {
        let total = 0;
        tools.forEach((t, i) => {
          const chars = JSON.stringify(t).length;
          total += chars;
          if (chars > REQUEST_LIMITS.toolChars) ctx.addIssue({ code: 'custom', path: [i], message: tooLong(`tool ${JSON.stringify(t.function.name.slice(0, 64))}`, REQUEST_LIMITS.toolChars) });
        });
        if (total > REQUEST_LIMITS.toolsChars) ctx.addIssue({ code: 'custom', message: tooLong('the tools together', REQUEST_LIMITS.toolsChars) });
      }),
  ),
  tool_choice: opt(ToolChoiceSchema),
  parallel_tool_calls: opt(z.boolean()),
  stream: opt(z.boolean()),
  stream_options: opt(z.object({ include_usage: opt(z.boolean()) })),
  max_tokens: opt(z.number().int().positive()),
  max_completion_tokens: opt(z.number().int().positive()),
  temperature: opt(z.number().min(0).max(2)),
  top_p: opt(z.number().gt(0).max(1)),
  stop: opt(z.union([TextSchema.min(1), z.array(TextSchema.min(1)).max(4)])),
  seed: opt(z.number().int()),
  n: opt(z.number().int().positive()),
  response_format: opt(z.object({ type: z.string() }).loose()),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** OpenAI's field: prompt tokens the engine took from its prefix KV cache instead of computing them. */
  prompt_tokens_details?: { cached_tokens: number };
}

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
export const RewardSchema = FiniteSchema.refine((r) => Math.abs(r) <= MAX_ABS_REWARD, { message: `must be between -${MAX_ABS_REWARD} and ${MAX_ABS_REWARD}` });

export const EndRequestSchema = z.object({
  taskId: IdSchema,
  reward: RewardSchema,
  success: z.boolean().optional(),
  metrics: z.record(IdSchema, FiniteSchema).refine((m) => Object.keys(m).length <= 64, { message: 'at most 64 metrics' }).optional(),
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
export { AlgoSchema, StrategySchema, TRAINING_DEFAULTS, TrainingConfigPatchSchema, TrainingConfigSchema, type Strategy, type TrainingConfig } from './options/index';

export const WorkerStateSchema = z.enum(['starting', 'running', 'paused', 'updating', 'checkpointing', 'recovering', 'stopping', 'failed']);
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
  serving: StepServingSchema.optional(),
});
export type StepMetrics = z.infer<typeof StepMetricsSchema>;

/** The serving side of `/swarm/v1/status`: the admission gate and the engine's batch and prefix-cache counters. */
export const ServingStatusSchema = z.object({
  /** `continuous` (the engine's continuous batcher) or `legacy` (the static path, for comparisons). */
  mode: z.enum(['continuous', 'legacy']),
  admitted: z.number().int(),
  completed: z.number().int(),
  cancelled: z.number().int(),
  failed: z.number().int(),
  inFlight: z.number().int(),
  waiting: z.number().int(),
  paused: z.boolean(),
  engine: CacheStatsSchema.nullable(),
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
  pool: z.object({ episodes: z.number().int(), tasks: z.number().int() }),
  episodes: z.object({ open: z.number().int() }),
  counters: CountersSchema,
  clients: z.array(ClientInfoSchema),
  lastStep: StepMetricsSchema.nullable(),
  eval: z.array(EvalResultSchema),
  engine: z.object({ alive: z.boolean(), device: z.string(), restarts: z.number().int(), lastError: z.string().nullable() }),
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
 * how), or — not trained (yet) — a preview merged with the worker's current settings (`trained: null`).
 */
export const MergedEpisodeAnswerSchema = z.object({
  samples: z.array(MergedSampleSchema),
  stats: MergeStatsSchema,
  /** Absent from workers older than this field (their samples are previews). */
  trained: TrainedInfoSchema.nullable().optional(),
});
export type MergedEpisodeAnswer = z.infer<typeof MergedEpisodeAnswerSchema>;

/** `<run-dir>/worker.json`, written once the worker serves: how to reach it (the workbench reads it). */
export const WorkerFileSchema = z.object({ pid: z.number().int(), url: z.string(), port: z.number().int(), bootId: z.string(), startedAt: z.number() });
export type WorkerFile = z.infer<typeof WorkerFileSchema>;

/** `GET /health`: `ok` is false when the engine failed or the pool journal's last write failed (`journal` says why). */
export const HealthSchema = z.object({
  ok: z.boolean(),
  state: WorkerStateSchema,
  step: z.number().int(),
  model: z.string(),
  journal: z.object({ ok: z.boolean(), lastError: z.string().nullable(), lastErrorAt: z.number().nullable() }).optional(),
});
export type Health = z.infer<typeof HealthSchema>;
