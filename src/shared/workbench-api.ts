// The renderer ⇄ main contract (DESIGN §4.3): one method table with a zod schema for every
// method's params and result, and one event union. Two transports carry it — Electron IPC (the
// preload) and a WebSocket bridge (`agentjet ui`, for a plain browser) — and both are generic over
// this table: the main side validates params with `dispatchWorkbenchCall`, the renderer side
// validates results in `createWorkbenchClient`. Nothing that crosses a process is trusted unparsed.
import { z } from 'zod';
import { RemoteError, toWireError, WireErrorSchema, type WireError } from './result';
import {
  AppInfoSchema,
  ClientRowSchema,
  CodeFileSchema,
  CodeFilesSchema,
  CodeMarkerSchema,
  CodeVersionSchema,
  CompileErrorSchema,
  EpisodeDetailSchema,
  EpisodeFilterSchema,
  EpisodePageSchema,
  EpisodeRowSchema,
  EvalPointSchema,
  ExampleInfoSchema,
  LocalConnectSchema,
  LogLineSchema,
  LogSourceSchema,
  RemoteConnectSchema,
  RunMetricsSchema,
  RunRowSchema,
  SaveResultSchema,
  SessionSchema,
  StepPointSchema,
} from './workbench-data';
import { CampaignCommandSchema, CampaignDetailSchema, CampaignSummarySchema } from './campaign/api';
import { innerLoopMethods } from './inner-loop-api';
import { RewardHackingEventSchema, RewardModelEventSchema, rewardsMethods } from './rewards-api';
import { TaskDraftRequestSchema, TaskDraftResultSchema } from './task-draft';

export * from './workbench-data';

const Int = z.number().int();
const Count = z.number().int().nonnegative();
const Id = z.string().min(1).max(300);

// ---------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------

const None = z.object({}).strict();

/** What a run export writes: CSV and JSONL tables, a TensorBoard event file. */
export const ExportFormatSchema = z.enum(['csv', 'jsonl', 'tensorboard']);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;
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
  /** With `quarantinePrevious`, the replaced version's pooled episodes are quarantined (docs/inner-loop.md). */
  saveCode: {
    params: z
      .object({ files: z.array(CodeFileSchema).min(1).max(50), quarantinePrevious: z.boolean().optional() })
      .strict(),
    result: SaveResultSchema,
  },
  codeVersions: { params: RunRef, result: z.object({ versions: z.array(CodeVersionSchema) }) },
  codeVersionFiles: {
    params: z.object({ runId: Id, codeVersion: z.string().min(1).max(100) }).strict(),
    result: z.object({ files: z.array(CodeFileSchema) }),
  },
  metrics: { params: RunRef, result: RunMetricsSchema },
  clients: { params: None, result: z.object({ clients: z.array(ClientRowSchema) }) },
  /** Restarts, stops or starts one local client. */
  clientAction: {
    params: z.object({ clientId: z.string().min(1).max(300), action: z.enum(['restart', 'stop', 'start']) }).strict(),
    result: Ok,
  },
  /** Restarts a local worker from its last checkpoint (the events stream resumes). */
  restartWorker: { params: None, result: Ok },
  /** Recent log lines of the worker or of a local client. */
  logs: {
    params: z.object({ source: LogSourceSchema, limit: Int.positive().max(5000).default(500) }).strict(),
    result: z.object({ lines: z.array(LogLineSchema) }),
  },
  episodes: {
    params: z
      .object({
        runId: Id,
        filter: EpisodeFilterSchema.default({}),
        offset: Count.default(0),
        limit: Int.positive().max(1000).default(200),
        order: z.enum(['newest', 'oldest', 'reward_desc', 'reward_asc']).default('newest'),
      })
      .strict(),
    result: EpisodePageSchema,
  },
  episodeDetail: {
    params: z.object({ runId: Id, episodeId: z.string().min(1).max(300) }).strict(),
    result: EpisodeDetailSchema,
  },
  runs: { params: None, result: z.object({ runs: z.array(RunRowSchema) }) },
  /**
   * Writes a stored run's step and eval curves and its episodes (CSV, JSONL) and a TensorBoard event file into a folder
   * under the data dir.
   */
  exportRun: {
    params: z.object({ runId: Id, formats: z.array(ExportFormatSchema).min(1).max(3).optional() }).strict(),
    result: z.object({ dir: z.string(), files: z.array(z.string()) }),
  },
  /** Campaigns in the data folder's store (docs/campaigns.md), newest first. */
  campaigns: { params: None, result: z.object({ campaigns: z.array(CampaignSummarySchema) }) },
  campaign: { params: z.object({ campaignId: Id }).strict(), result: CampaignDetailSchema },
  /** Starts (or resumes) the campaign in a campaign file as an `agentjet campaign run` process. */
  campaignStart: {
    params: z.object({ file: z.string().min(1).max(2000) }).strict(),
    result: z.object({ campaignId: z.string(), pid: Int }),
  },
  /** Stop the campaign, stop a trial, or steer the research agent (pause, resume, hand back, ask/auto). */
  campaignCommand: { params: z.object({ campaignId: Id, command: CampaignCommandSchema }).strict(), result: Ok },
  /** Approves or rejects a research-agent proposal waiting in "ask before running" mode. */
  campaignDecision: {
    params: z.object({ campaignId: Id, decisionId: Int, approve: z.boolean() }).strict(),
    result: Ok,
  },
  /**
   * "New task from description": an LLM writes client.ts, reward.ts and a dataset, checked by `agentjet task check` in
   * a loop.
   */
  taskDraft: { params: TaskDraftRequestSchema, result: TaskDraftResultSchema },
  ...rewardsMethods,
  ...innerLoopMethods,
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
  /** The samples an update trained of an episode are stored (its detail now shows them). */
  z.object({ type: z.literal('trained'), runId: Id, episodeId: z.string() }),
  RewardModelEventSchema,
  RewardHackingEventSchema,
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

/** An error a method throws on purpose, shown to the user as is; it crosses the wire as a `WireError`. */
export class WorkbenchError extends RemoteError {
  constructor(code: string, message: string, type = 'workbench') {
    super({ type, code, message });
    this.name = 'WorkbenchError';
  }
}

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
  if (!isWorkbenchMethod(method))
    return {
      ok: false,
      error: { type: 'invalid_request', code: 'unknown_method', message: `unknown method ${JSON.stringify(method)}` },
    };
  const parsed = workbenchMethods[method].params.safeParse(params ?? {});
  if (!parsed.success)
    return {
      ok: false,
      error: { type: 'invalid_request', code: 'invalid_params', message: `${method}: ${describeIssues(parsed.error)}` },
    };
  try {
    // The table pairs each method with its schema, so the parsed params fit that method's handler.
    const handler = backend[method] as (p: unknown) => Promise<unknown>;
    return { ok: true, result: await handler.call(backend, parsed.data) };
  } catch (err) {
    return { ok: false, error: toWireError(err) };
  }
}

/** A transport as the renderer needs it: one call, and a stream of raw event payloads. */
export interface WorkbenchTransport {
  call(method: WorkbenchMethod, params: unknown): Promise<unknown>;
  subscribe(listener: (raw: unknown) => void): () => void;
}

/** Renderer side: the typed API over a transport; every result and event is parsed before use. */
export function createWorkbenchClient(
  transport: WorkbenchTransport,
  onBadEvent?: (message: string) => void,
): WorkbenchApi {
  const methods = Object.fromEntries(
    WORKBENCH_METHODS.map((m) => [
      m,
      async (params: unknown) => {
        const raw = await transport.call(m, params ?? {});
        const parsed = workbenchMethods[m].result.safeParse(raw);
        if (!parsed.success)
          throw new WorkbenchError('bad_result', `${m}: unexpected result (${describeIssues(parsed.error)})`);
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
export const BridgeRequestSchema = z.object({
  type: z.literal('call'),
  id: Int.nonnegative(),
  method: z.string().max(100),
  params: z.unknown(),
});
export type BridgeRequest = z.infer<typeof BridgeRequestSchema>;

/** WebSocket bridge frames (main → browser), and the IPC call reply. */
export const BridgeReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('result'), id: Int.nonnegative(), result: z.unknown() }),
  z.object({ type: z.literal('error'), id: Int.nonnegative().nullable(), error: WireErrorSchema }),
  z.object({ type: z.literal('event'), event: z.unknown() }),
]);
export type BridgeReply = z.infer<typeof BridgeReplySchema>;

/** The IPC `call` reply (the id is implicit in invoke/handle). */
export const IpcReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: WireErrorSchema }),
]);
