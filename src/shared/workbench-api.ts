// The renderer ⇄ main contract (DESIGN §4.3): one method table with a zod schema for every
// method's params and result, and one event union. Two transports carry it — Electron IPC (the
// preload) and a WebSocket bridge (`agentjet ui`, for a plain browser) — and both are generic over
// this table: the main side validates params with `dispatchWorkbenchCall`, the renderer side
// validates results in `createWorkbenchClient`. Nothing that crosses a process is trusted unparsed.
import { z } from 'zod';
import { BatchProgressSchema, EpisodeKindSchema, EpisodeStatusSchema, StepServingSchema, StrategySchema, WorkerStateSchema } from './swarm-protocol';
import { BreakCauseSchema } from './timeline/types';

const Int = z.number().int();
const Count = z.number().int().nonnegative();
const Id = z.string().min(1).max(300);

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

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
  /** The last problem (worker exited, events stream lost, …); null when healthy. */
  error: z.string().nullable(),
  startedAt: z.number(),
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
  strategy: StrategySchema.optional(),
  batch: Int.positive().max(100_000).optional(),
  groupSize: Int.positive().max(1024).optional(),
  lr: z.number().positive().max(1).optional(),
  maxTokens: Int.positive().max(4096).optional(),
});
export type LocalConnect = z.input<typeof LocalConnectSchema>;

export const RemoteConnectSchema = z.object({
  url: z.string().min(1).max(2000),
  adminToken: z.string().min(1).max(500),
  /** With a join token and an example, the workbench also runs local clients against the remote worker. */
  joinToken: z.string().min(1).max(500).optional(),
  example: z.string().min(1).optional(),
  clients: Int.min(0).max(64).default(0),
});
export type RemoteConnect = z.input<typeof RemoteConnectSchema>;

export const CodeFileSchema = z.object({
  /** Relative to the workspace root ('/'-separated, never '..'): the repository root for the bundled examples, the folder itself for a user's client folder. */
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
  z.object({ ok: z.literal(true), codeVersion: z.string(), previousCodeVersion: z.string().nullable(), compileMs: z.number(), swapMs: z.number() }),
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
});
export type StepPoint = z.infer<typeof StepPointSchema>;

export const EvalPointSchema = z.object({ weightVersion: Count, time: z.number(), episodes: Count, rewardMean: z.number(), successRate: z.number().nullable() });
export type EvalPoint = z.infer<typeof EvalPointSchema>;

/** Where the client code version changed (a hot-swap), for chart markers. */
export const CodeMarkerSchema = z.object({ codeVersion: z.string(), previousCodeVersion: z.string().nullable(), time: z.number(), step: Count });
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

export const LogLineSchema = z.object({ t: z.number(), source: z.string(), stream: z.enum(['stdout', 'stderr', 'event']), line: z.string() });
export type LogLine = z.infer<typeof LogLineSchema>;

export const EpisodeRowSchema = z.object({
  episodeId: z.string(),
  kind: EpisodeKindSchema,
  status: EpisodeStatusSchema,
  taskId: z.string().nullable(),
  clientId: z.string(),
  codeVersion: z.string().nullable(),
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
  stats: z.object({ tokensBefore: Count, tokensAfter: Count, compressionRatio: z.number(), breakCounts: z.record(z.string(), Count) }).nullable(),
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

// ---------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------

const None = z.object({}).strict();
const RunRef = z.object({ runId: Id }).strict();
const Ok = z.object({ ok: z.literal(true) });

export const workbenchMethods = {
  appInfo: { params: None, result: AppInfoSchema },
  examples: { params: None, result: z.object({ examples: z.array(ExampleInfoSchema) }) },
  /** The current session, or null when not connected. */
  session: { params: None, result: SessionSchema.nullable() },
  /** Launches a local worker (built-in or folder model) and the example's clients; resolves once the worker serves. */
  connectLocal: { params: LocalConnectSchema.strict(), result: SessionSchema },
  /** Attaches to a running worker; a bad URL or token is an error naming which. */
  connectRemote: { params: RemoteConnectSchema.strict(), result: SessionSchema },
  /** Stops local clients and a local worker (checkpointing it); detaches from a remote one. */
  disconnect: { params: None, result: Ok },
  /** The live run's client files. */
  codeFiles: { params: None, result: CodeFilesSchema },
  /** Saves the edited files, compiles, and hot-swaps the clients (running clients untouched on a compile error). */
  saveCode: { params: z.object({ files: z.array(CodeFileSchema).min(1).max(50) }).strict(), result: SaveResultSchema },
  codeVersions: { params: RunRef, result: z.object({ versions: z.array(CodeVersionSchema) }) },
  codeVersionFiles: { params: z.object({ runId: Id, codeVersion: z.string().min(1).max(100) }).strict(), result: z.object({ files: z.array(CodeFileSchema) }) },
  metrics: { params: RunRef, result: RunMetricsSchema },
  clients: { params: None, result: z.object({ clients: z.array(ClientRowSchema) }) },
  clientAction: { params: z.object({ clientId: z.string().min(1).max(300), action: z.enum(['restart', 'stop', 'start']) }).strict(), result: Ok },
  /** Recent log lines of a local client, or of the worker (`clientId: 'worker'`). */
  logs: { params: z.object({ clientId: z.string().min(1).max(300), limit: Int.positive().max(5000).default(500) }).strict(), result: z.object({ lines: z.array(LogLineSchema) }) },
  episodes: {
    params: z.object({ runId: Id, filter: EpisodeFilterSchema.default({}), offset: Count.default(0), limit: Int.positive().max(1000).default(200), order: z.enum(['newest', 'oldest', 'reward_desc', 'reward_asc']).default('newest') }).strict(),
    result: EpisodePageSchema,
  },
  episodeDetail: { params: z.object({ runId: Id, episodeId: z.string().min(1).max(300) }).strict(), result: EpisodeDetailSchema },
  runs: { params: None, result: z.object({ runs: z.array(RunRowSchema) }) },
} as const;

export type WorkbenchMethods = typeof workbenchMethods;
export type WorkbenchMethod = keyof WorkbenchMethods;
export type WorkbenchParams<M extends WorkbenchMethod> = z.input<WorkbenchMethods[M]['params']>;
export type WorkbenchParsedParams<M extends WorkbenchMethod> = z.output<WorkbenchMethods[M]['params']>;
export type WorkbenchResult<M extends WorkbenchMethod> = z.output<WorkbenchMethods[M]['result']>;
export const WORKBENCH_METHODS = Object.keys(workbenchMethods) as WorkbenchMethod[];

// ---------------------------------------------------------------------------------------------
// Events (main → renderer)
// ---------------------------------------------------------------------------------------------

export const WorkbenchEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session'), session: SessionSchema.nullable() }),
  z.object({ type: z.literal('step'), runId: Id, point: StepPointSchema }),
  z.object({ type: z.literal('eval'), runId: Id, point: EvalPointSchema }),
  z.object({ type: z.literal('episode'), runId: Id, row: EpisodeRowSchema }),
  z.object({ type: z.literal('clients'), clients: z.array(ClientRowSchema) }),
  z.object({ type: z.literal('code'), runId: Id, marker: CodeMarkerSchema }),
  z.object({ type: z.literal('compile_failed'), runId: Id, errors: z.array(CompileErrorSchema) }),
  z.object({ type: z.literal('log'), line: LogLineSchema }),
]);
export type WorkbenchEvent = z.infer<typeof WorkbenchEventSchema>;

// ---------------------------------------------------------------------------------------------
// The API as the renderer sees it, and the backend as main implements it
// ---------------------------------------------------------------------------------------------

export type WorkbenchApi = {
  [M in WorkbenchMethod]: (params: WorkbenchParams<M>) => Promise<WorkbenchResult<M>>;
} & {
  /** Subscribes to pushed events; returns the unsubscribe function. */
  onEvent(listener: (event: WorkbenchEvent) => void): () => void;
};

/** What main implements: params arrive parsed (defaults applied). */
export type WorkbenchBackend = {
  [M in WorkbenchMethod]: (params: WorkbenchParsedParams<M>) => Promise<WorkbenchResult<M>>;
};

/** An error a method throws on purpose, shown to the user as is. */
export class WorkbenchError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WorkbenchError';
  }
}

export const WireErrorSchema = z.object({ code: z.string(), message: z.string() });
export type WireError = z.infer<typeof WireErrorSchema>;

export function isWorkbenchMethod(name: unknown): name is WorkbenchMethod {
  return typeof name === 'string' && Object.hasOwn(workbenchMethods, name);
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(params)'}: ${i.message}`).join('; ');
}

/** Main side: validates the method and its params, calls the backend; never throws (errors become values). */
export async function dispatchWorkbenchCall(
  backend: WorkbenchBackend,
  method: unknown,
  params: unknown,
): Promise<{ ok: true; result: unknown } | { ok: false; error: WireError }> {
  if (!isWorkbenchMethod(method)) return { ok: false, error: { code: 'unknown_method', message: `unknown method ${JSON.stringify(method)}` } };
  const parsed = workbenchMethods[method].params.safeParse(params ?? {});
  if (!parsed.success) return { ok: false, error: { code: 'invalid_params', message: `${method}: ${describeIssues(parsed.error)}` } };
  try {
    // The table pairs each method with its schema, so the parsed params fit that method's handler.
    const handler = backend[method] as (p: unknown) => Promise<unknown>;
    return { ok: true, result: await handler.call(backend, parsed.data) };
  } catch (err) {
    if (err instanceof WorkbenchError) return { ok: false, error: { code: err.code, message: err.message } };
    return { ok: false, error: { code: 'internal', message: err instanceof Error ? err.message : String(err) } };
  }
}

/** A transport as the renderer needs it: one call, and a stream of raw event payloads. */
export interface WorkbenchTransport {
  call(method: WorkbenchMethod, params: unknown): Promise<unknown>;
  subscribe(listener: (raw: unknown) => void): () => void;
}

/** Renderer side: the typed API over a transport; every result and event is parsed before use. */
export function createWorkbenchClient(transport: WorkbenchTransport, onBadEvent?: (message: string) => void): WorkbenchApi {
  const methods = Object.fromEntries(
    WORKBENCH_METHODS.map((m) => [
      m,
      async (params: unknown) => {
        const raw = await transport.call(m, params ?? {});
        const parsed = workbenchMethods[m].result.safeParse(raw);
        if (!parsed.success) throw new WorkbenchError('bad_result', `${m}: unexpected result (${describeIssues(parsed.error)})`);
        return parsed.data;
      },
    ]),
  );
  const onEvent = (listener: (event: WorkbenchEvent) => void): (() => void) =>
    transport.subscribe((raw) => {
      const parsed = WorkbenchEventSchema.safeParse(raw);
      if (parsed.success) listener(parsed.data);
      else onBadEvent?.(`dropped a malformed event: ${describeIssues(parsed.error)}`);
    });
  // Built from the method table above, which has exactly the WorkbenchApi's keys.
  return { ...methods, onEvent } as unknown as WorkbenchApi;
}

// ---------------------------------------------------------------------------------------------
// Wire frames
// ---------------------------------------------------------------------------------------------

/** Electron IPC channels: one for calls, one for pushed events. */
export const ipcChannels = { call: 'workbench:call', event: 'workbench:event' } as const;

/** WebSocket bridge frames (browser → main). */
export const BridgeRequestSchema = z.object({ type: z.literal('call'), id: Int.nonnegative(), method: z.string().max(100), params: z.unknown() });
export type BridgeRequest = z.infer<typeof BridgeRequestSchema>;

/** WebSocket bridge frames (main → browser), and the IPC call reply. */
export const BridgeReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('result'), id: Int.nonnegative(), result: z.unknown() }),
  z.object({ type: z.literal('error'), id: Int.nonnegative().nullable(), error: WireErrorSchema }),
  z.object({ type: z.literal('event'), event: z.unknown() }),
]);
export type BridgeReply = z.infer<typeof BridgeReplySchema>;

/** The IPC `call` reply (the id is implicit in invoke/handle). */
export const IpcReplySchema = z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), result: z.unknown() }), z.object({ ok: z.literal(false), error: WireErrorSchema })]);
