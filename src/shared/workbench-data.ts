// The data of the renderer ⇄ main contract (workbench-api.ts): the zod schema of every value a
// method takes or returns or an event carries — session, connect params, code, metrics, clients,
// logs, episodes and the inspector's views. Re-exported by workbench-api.ts.
import { z } from 'zod';
import { ConnectTrainingShape, ConnectWorkerShape } from './options/index';
import {
  BatchProgressSchema,
  EpisodeKindSchema,
  EpisodeStatusSchema,
  StepServingSchema,
  StrategySchema,
  TrainedInfoSchema,
  WorkerStateSchema,
} from './swarm-protocol';
import { StepHealthSchema } from './rollout-health';
import { BreakCauseSchema } from './timeline/types';
import { FingerprintTextSchema } from './tls-fingerprint';

const Int = z.number().int();
const Count = z.number().int().nonnegative();
const Id = z.string().min(1).max(300);

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  platform: z.string(),
  transport: z.enum(['electron', 'websocket']),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/** What a long operation is doing, for progress displays. */
export const ActivitySchema = z.object({
  phase: z.enum(['starting_worker', 'loading_model', 'compiling', 'starting_clients', 'connecting', 'stopping']),
  detail: z.string(),
  /** 0..1 where known. */
  fraction: z.number().min(0).max(1).nullable(),
});
export type Activity = z.infer<typeof ActivitySchema>;

/** What is wrong with the session, by cause: each is set and cleared by the part that owns it. */
export const SessionErrorCodeSchema = z.enum([
  'unreachable',
  'unhealthy',
  'events_lost',
  'worker_exited',
  'compile_failed',
]);
export type SessionErrorCode = z.infer<typeof SessionErrorCodeSchema>;
export const SessionErrorSchema = z.object({ code: SessionErrorCodeSchema, message: z.string() });
export type SessionError = z.infer<typeof SessionErrorSchema>;

/** How a remote worker is reached: its certificate (https) and the SSH host it is tunnelled through. */
export const TransportInfoSchema = z.object({
  /** The worker's URL as given (as the SSH host sees it, when tunnelled). */
  remoteUrl: z.string(),
  /** The SSH host the connection goes through, or null. */
  sshHost: z.string().nullable(),
  /** The pinned certificate's SHA-256 fingerprint (https), or null (plain HTTP). */
  fingerprint256: z.string().nullable(),
  /** The certificate was seen for the first time and trusted now: compare it with what the worker printed. */
  trustedOnFirstUse: z.boolean(),
});
export type TransportInfo = z.infer<typeof TransportInfoSchema>;

/** The current connection: a local worker the workbench launched, or a remote one it attached to. */
export const SessionSchema = z.object({
  runId: Id,
  mode: z.enum(['local', 'remote']),
  workerUrl: z.string(),
  /** Worker state, or where the connection itself is. */
  state: z.union([WorkerStateSchema, z.enum(['connecting', 'disconnected'])]),
  model: z.string(),
  /** Example name or client folder (local runs; remote runs with local clients). */
  example: z.string().nullable(),
  step: Count,
  weightVersion: Count,
  strategy: StrategySchema.nullable(),
  progress: BatchProgressSchema.nullable(),
  poolEpisodes: Count,
  activity: ActivitySchema.nullable(),
  /** The last problem (worker exited, events stream lost, …) with its cause; null when healthy. */
  error: SessionErrorSchema.nullable(),
  startedAt: z.number(),
  /** A remote worker's transport (certificate, SSH tunnel). */
  transport: TransportInfoSchema.optional(),
});
export type Session = z.infer<typeof SessionSchema>;

export const ExampleInfoSchema = z.object({ name: z.string(), description: z.string(), files: z.array(z.string()) });
export type ExampleInfo = z.infer<typeof ExampleInfoSchema>;

export const LocalConnectSchema = z.object({
  /** 'builtin' or a local Hugging Face model folder. */
  model: z.string().min(1).default('builtin'),
  /** An example name (`examples`) or a folder holding `client.ts` (+ `reward.ts`). */
  example: z.string().min(1).default('calculator-agent'),
  clients: Int.min(0).max(64).default(2),
  /** Training and engine settings of the form (declared in options/declarations.ts; unset: the worker's defaults). */
  ...ConnectTrainingShape,
  ...ConnectWorkerShape,
});
export type LocalConnect = z.input<typeof LocalConnectSchema>;

export const RemoteConnectSchema = z.object({
  url: z.string().min(1).max(2000),
  adminToken: z.string().min(1).max(500),
  /** With a join token and an example, the workbench also runs local clients against the remote worker. */
  joinToken: z.string().min(1).max(500).optional(),
  example: z.string().min(1).optional(),
  clients: Int.min(0).max(64).default(0),
  /** An https worker's certificate fingerprint to trust (replaces the pinned one); absent: trust on first use. */
  fingerprint: FingerprintTextSchema.optional(),
  /**
   * Reach the worker through an SSH tunnel to this host (a ~/.ssh/config alias or user@host); `url` is then the
   * worker's address there.
   */
  sshHost: z
    .string()
    .max(255)
    .regex(/^[A-Za-z0-9_.@%:[\]-]+$/, 'an ssh config Host alias or user@host (letters, digits, . _ - @ : [ ])')
    .refine((h) => !h.startsWith('-'), 'may not start with -')
    .optional(),
});
export type RemoteConnect = z.input<typeof RemoteConnectSchema>;

export const CodeFileSchema = z.object({
  /**
   * Relative to the workspace root ('/'-separated, never '..'): the repository root for the bundled examples, the
   * folder itself for a user's client folder.
   */
  path: z.string().min(1).max(500),
  content: z.string().max(2_000_000),
});
export type CodeFile = z.infer<typeof CodeFileSchema>;

export const CodeFilesSchema = z.object({
  runId: Id,
  /** The version the clients run now (null before the first compile). */
  codeVersion: z.string().nullable(),
  /** The client entry file, one of `files`. */
  entry: z.string(),
  files: z.array(CodeFileSchema.extend({ editable: z.boolean() })),
});
export type CodeFiles = z.infer<typeof CodeFilesSchema>;

export const CompileErrorSchema = z.object({ path: z.string(), line: Count, column: Count, message: z.string() });
export type CompileError = z.infer<typeof CompileErrorSchema>;

export const SaveResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    codeVersion: z.string(),
    previousCodeVersion: z.string().nullable(),
    compileMs: z.number(),
    swapMs: z.number(),
    /** Episodes of the previous version quarantined by this save (`quarantinePrevious`). */
    quarantined: z.number().int().optional(),
  }),
  z.object({ ok: z.literal(false), errors: z.array(CompileErrorSchema) }),
]);
export type SaveResult = z.infer<typeof SaveResultSchema>;

export const CodeVersionSchema = z.object({
  codeVersion: z.string(),
  createdAt: z.number(),
  /** Training steps completed when this version took over (null: never deployed). */
  step: Count.nullable(),
  files: z.array(z.string()),
});
export type CodeVersion = z.infer<typeof CodeVersionSchema>;

/** One training step, as charted. */
export const StepPointSchema = z.object({
  step: Count,
  weightVersion: Count,
  time: z.number(),
  episodes: Count,
  rewardMean: z.number(),
  rewardMin: z.number(),
  rewardMax: z.number(),
  successRate: z.number().nullable(),
  samples: Count,
  tokensBefore: Count,
  tokensAfter: Count,
  compressionRatio: z.number(),
  samplesPerEpisode: z.number(),
  /** Seconds collecting the batch (previous step's end → this update's start) and updating. */
  rolloutS: z.number(),
  updateS: z.number(),
  loss: z.number().nullable(),
  entropy: z.number().nullable(),
  approxKl: z.number().nullable(),
  breakCounts: z.record(z.string(), Count),
  /** The engine's prefix cache and batching over the step's rollouts (absent from older workers). */
  serving: StepServingSchema.optional(),
  /** PPO clip fraction and the KL to the reference (absent from older runs). */
  clipFraction: z.number().nullable().optional(),
  klLoss: z.number().nullable().optional(),
  /** On-policy distillation's mean reverse KL to the teacher over the trained tokens (distilling runs only). */
  distillReverseKl: z.number().optional(),
  /** Distilling the teacher's top-k (--distill-top-k): the KL to its top-k distribution the step trained on. */
  distillTopKl: z.number().optional(),
  /** Distilling with --distill-keep: the fraction of the step's samples that trained. */
  distillKept: z.number().optional(),
  /** Run health: staleness, mismatch, correction, busy fractions, sync time (absent from older workers). */
  health: StepHealthSchema.optional(),
});
export type StepPoint = z.infer<typeof StepPointSchema>;

export const EvalPointSchema = z.object({
  weightVersion: Count,
  time: z.number(),
  episodes: Count,
  rewardMean: z.number(),
  successRate: z.number().nullable(),
});
export type EvalPoint = z.infer<typeof EvalPointSchema>;

/** Where the client code version changed (a hot-swap), for chart markers. */
export const CodeMarkerSchema = z.object({
  codeVersion: z.string(),
  previousCodeVersion: z.string().nullable(),
  time: z.number(),
  step: Count,
});
export type CodeMarker = z.infer<typeof CodeMarkerSchema>;

export const RunMetricsSchema = z.object({
  runId: Id,
  steps: z.array(StepPointSchema),
  evals: z.array(EvalPointSchema),
  markers: z.array(CodeMarkerSchema),
});
export type RunMetrics = z.infer<typeof RunMetricsSchema>;

export const ClientRowSchema = z.object({
  clientId: z.string(),
  /** Started by this workbench's runner (restart/stop apply), or seen on the worker only. */
  local: z.boolean(),
  status: z.enum(['starting', 'running', 'restarting', 'stopped', 'crashed', 'connected', 'gone']),
  pid: Int.nullable(),
  codeVersion: z.string().nullable(),
  claimed: Count,
  ended: Count,
  aborted: Count,
  expired: Count,
  openEpisodes: Count,
  restarts: Count,
  lastActivityAt: z.number().nullable(),
});
export type ClientRow = z.infer<typeof ClientRowSchema>;

/** Whose log line: the worker's, or one local client's (no client id stands for the worker). */
export const LogSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('worker') }),
  z.object({ kind: z.literal('client'), clientId: z.string().min(1).max(300) }),
]);
export type LogSource = z.infer<typeof LogSourceSchema>;
export const WORKER_SOURCE: LogSource = { kind: 'worker' };
export const clientSource = (clientId: string): LogSource => ({ kind: 'client', clientId });
export const sameSource = (a: LogSource, b: LogSource): boolean =>
  a.kind === b.kind && (a.kind === 'worker' || (b.kind === 'client' && a.clientId === b.clientId));

export const LogLineSchema = z.object({
  t: z.number(),
  source: LogSourceSchema,
  stream: z.enum(['stdout', 'stderr', 'event']),
  line: z.string(),
});
export type LogLine = z.infer<typeof LogLineSchema>;

export const EpisodeRowSchema = z.object({
  episodeId: z.string(),
  kind: EpisodeKindSchema,
  status: EpisodeStatusSchema,
  taskId: z.string().nullable(),
  clientId: z.string(),
  codeVersion: z.string().nullable(),
  /** The role it played in a multi-role game (the claim's `role`); null: none named. */
  role: z.string().nullable(),
  reward: z.number().nullable(),
  success: z.boolean().nullable(),
  calls: Count,
  createdAt: z.number(),
  finishedAt: z.number().nullable(),
  /** Whether the timelines are stored (fetched from the worker after the episode finished). */
  hasTimelines: z.boolean(),
});
export type EpisodeRow = z.infer<typeof EpisodeRowSchema>;

export const EpisodeFilterSchema = z.object({
  /** Substring of the task id. */
  task: z.string().max(200).optional(),
  clientId: z.string().max(300).optional(),
  codeVersion: z.string().max(100).optional(),
  role: z.string().max(100).optional(),
  kind: EpisodeKindSchema.optional(),
  status: EpisodeStatusSchema.optional(),
  minReward: z.number().optional(),
  maxReward: z.number().optional(),
});
export type EpisodeFilter = z.infer<typeof EpisodeFilterSchema>;

export const EpisodePageSchema = z.object({ total: Count, offset: Count, rows: z.array(EpisodeRowSchema) });
export type EpisodePage = z.infer<typeof EpisodePageSchema>;

/** One token as the inspector shows it. */
export const TokenViewSchema = z.object({
  id: Count,
  /** The token's text (decoded alone; may show U+FFFD for a partial UTF-8 character). */
  text: z.string(),
  /** 1: trained (generated by the policy), 0: context. */
  mask: z.union([z.literal(0), z.literal(1)]),
  /** Rollout logprob of a generated token; null for context. */
  logprob: z.number().nullable(),
});
export type TokenView = z.infer<typeof TokenViewSchema>;

export const CallViewSchema = z.object({
  timelineId: z.string(),
  callIndex: Count,
  agent: z.string(),
  weightVersion: Count,
  finishReason: z.string(),
  /** Prompt tokens (mask 0) then output tokens (mask 1). */
  tokens: z.array(TokenViewSchema),
  promptTokens: Count,
  /** The chain break this call caused, when it did not extend the previous chain. */
  breakCause: BreakCauseSchema.nullable(),
  /** Index of the merged sample that trains this call's output. */
  sampleIndex: Int.nullable(),
});
export type CallView = z.infer<typeof CallViewSchema>;

export const SampleViewSchema = z.object({
  index: Count,
  kind: z.enum(['linear', 'tree']),
  tokens: z.array(TokenViewSchema),
  /** The calls whose generated tokens this sample trains. */
  timelineIds: z.array(z.string()),
  /** Tree samples: parent index per token (-1 for the root); null for linear ones. */
  parents: z.array(Int).nullable(),
});
export type SampleView = z.infer<typeof SampleViewSchema>;

export const EpisodeDetailSchema = z.object({
  episode: EpisodeRowSchema,
  calls: z.array(CallViewSchema),
  samples: z.array(SampleViewSchema),
  stats: z
    .object({
      tokensBefore: Count,
      tokensAfter: Count,
      compressionRatio: z.number(),
      breakCounts: z.record(z.string(), Count),
    })
    .nullable(),
  /**
   * How an update trained `samples`; null: they are a preview merged with the worker's settings of the time (not
   * trained, or not yet).
   */
  trained: TrainedInfoSchema.nullable(),
});
export type EpisodeDetail = z.infer<typeof EpisodeDetailSchema>;

export const RunRowSchema = z.object({
  runId: Id,
  name: z.string(),
  mode: z.enum(['local', 'remote']),
  workerUrl: z.string(),
  model: z.string(),
  example: z.string().nullable(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  /** Whether this is the run of the current session. */
  live: z.boolean(),
  steps: Count,
  episodes: Count,
  lastRewardMean: z.number().nullable(),
  lastEvalSuccess: z.number().nullable(),
});
export type RunRow = z.infer<typeof RunRowSchema>;
