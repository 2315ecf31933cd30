// WorkerService: the workbench's side of one worker — a local child process it launched (logs,
// health, restart, stop with a checkpoint) or a remote one it attached to. It follows the events
// stream, folds events into steps, evals, episodes and session changes, persists them through the
// write batcher, pushes them to the renderer, fetches finished episodes' timelines, and stores the
// vocabulary once.
import { writeFileSync } from 'node:fs';
import type { Agent } from 'node:http';
import { join } from 'node:path';
import { WorkerConfigPatchSchema, type WorkerConfigPatch } from '../../shared/options/index';
import type { SwarmEvent } from '../../shared/swarm-events';
import type { Status } from '../../shared/swarm-protocol';
import { WorkbenchError, WORKER_SOURCE, type LogLine } from '../../shared/workbench-api';
import { EpisodeFetcher, type FetchedEpisode, type FetchedSamples } from './episode-fetcher';
import { EventFeed } from '../event-feed';
import { EventFolder, type FoldOutput } from './event-folding';
import type { RunContext, SessionState } from './run-context';
import { WorkerClient } from '../worker-client';
import { WorkerProcess } from './worker-process';

const LOG_CAPACITY = 2000;

export interface LocalWorkerSpec {
  /** `bin/agentjet.mjs`. */
  bin: string;
  cwd: string;
  /** The worker's settings (parsed by the worker with the same schema); run dir and port are added per launch. */
  config: WorkerConfigPatch;
  /** Where the launch's config file is written (`agentjet worker --config <file>`). */
  configFile: string;
  /** The worker's run folder. */
  runDir: string;
  tokens: { admin: string; join: string };
  startTimeoutMs?: number;
}

export interface Launched {
  proc: WorkerProcess;
  url: string;
  /** The output lines of the start, to be stored with the run. */
  startup: LogLine[];
  /** Where the later output lines go (until then they are added to `startup`). */
  attach(sink: (l: LogLine) => void): void;
}

/** Starts a local worker, showing progress in the session (starting_worker → loading_model). */
export async function launchLocalWorker(
  spec: LocalWorkerSpec,
  session: SessionState,
  opts: {
    resume?: boolean;
    port?: number;
    onLine?: (l: LogLine) => void;
    onExit?: (code: number | null, signal: string | null) => void;
  } = {},
): Promise<Launched> {
  const startup: LogLine[] = [];
  let sink: ((l: LogLine) => void) | null = opts.onLine ?? null;
  session.activity('starting_worker', 'launching the worker process');
  writeFileSync(
    spec.configFile,
    `${JSON.stringify(WorkerConfigPatchSchema.parse({ ...spec.config, runDir: spec.runDir, port: opts.port ?? 0 }), null, 2)}\n`,
  );
  const { proc, url } = await WorkerProcess.start(
    {
      bin: spec.bin,
      cwd: spec.cwd,
      tokens: spec.tokens,
      args: ['--config', spec.configFile, ...(opts.resume ? ['--resume', spec.runDir] : [])],
      workerFile: join(spec.runDir, 'worker.json'),
      // Its log events come over the events stream, which the WorkerService stores: each line once.
      logEventsOnly: true,
      onLine: (stream, line) => {
        const l: LogLine = { t: Date.now(), source: WORKER_SOURCE, stream, line };
        if (sink) sink(l);
        else startup.push(l);
      },
      ...(opts.onExit ? { onExit: opts.onExit } : {}),
      ...(spec.startTimeoutMs ? { startTimeoutMs: spec.startTimeoutMs } : {}),
    },
    (line) => {
      const phase = session.get().activity?.phase;
      if (phase === 'starting_worker' || phase === 'loading_model')
        session.activity('loading_model', line.slice(0, 200));
    },
  );
  return { proc, url, startup, attach: (s) => void (sink = s) };
}

export interface WorkerConnection {
  url: string;
  adminToken: string;
  /** Known for a local worker (or when the user gave it for a remote one). */
  joinToken: string | null;
  local: {
    proc: WorkerProcess;
    spec: LocalWorkerSpec;
    port: number;
    attach?: (sink: (l: LogLine) => void) => void;
  } | null;
  /** A remote worker's transport: the pinned-certificate agent, and what to close when detaching (an SSH tunnel). */
  remote?: { agent: Agent | null; caFile: string | null; close(): Promise<void> };
}

/** The session fields a status snapshot sets. */
export function sessionFromStatus(s: Status): {
  state: Status['state'];
  model: string;
  step: number;
  weightVersion: number;
  strategy: Status['config']['strategy'];
  progress: Status['progress'];
  poolEpisodes: number;
} {
  return {
    state: s.state,
    model: s.model,
    step: s.step,
    weightVersion: s.weightVersion,
    strategy: s.config.strategy,
    progress: s.progress,
    poolEpisodes: s.pool.episodes,
  };
}

export class WorkerService {
  readonly http: WorkerClient;
  private feed: EventFeed | null = null;
  private readonly folder: EventFolder;
  private readonly fetcher: EpisodeFetcher;
  private readonly ring: LogLine[] = [];
  private healthTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private disposed = false;
  /** Set once stopped: the worker's last lines (its checkpoint on shutdown) are kept until then. */
  private logsClosed = false;
  private readonly stepListeners = new Set<(step: number) => void>();
  private readonly eventListeners = new Set<(e: SwarmEvent) => void>();
  /** The worker's status when the connection was made. */
  firstStatus: Status | null = null;

  private constructor(
    private readonly ctx: RunContext,
    private conn: WorkerConnection,
  ) {
    this.http = new WorkerClient(conn.url, conn.adminToken, conn.remote?.agent ? { agent: conn.remote.agent } : {});
    this.folder = new EventFolder();
    this.fetcher = new EpisodeFetcher(
      this.http,
      (e) => this.storeFetched(e),
      (s) => this.storeTrained(s),
      (m) => this.note(m, 'stderr'),
    );
  }

  /** Follows a serving worker: status into the session, the events stream, the vocabulary. */
  static async connect(
    ctx: RunContext,
    conn: WorkerConnection,
    startup: readonly LogLine[] = [],
  ): Promise<WorkerService> {
    const svc = new WorkerService(ctx, conn);
    for (const l of startup) svc.addLog(l);
    conn.local?.attach?.((l) => svc.addLog(l));
    if (conn.local) svc.watchExit(conn.local.proc);
    try {
      await svc.follow();
    } catch (err) {
      await svc.dispose({ stopWorker: false });
      throw err;
    }
    return svc;
  }

  get url(): string {
    return this.conn.url;
  }

  get adminToken(): string {
    return this.conn.adminToken;
  }

  get joinToken(): string | null {
    return this.conn.joinToken;
  }

  get isLocal(): boolean {
    return this.conn.local !== null;
  }

  /** Called with the new step after every training step. */
  onStep(listener: (step: number) => void): () => void {
    this.stepListeners.add(listener);
    return () => this.stepListeners.delete(listener);
  }

  /** Called with every event of the worker's stream (the clients list follows them). */
  onSwarmEvent(listener: (e: SwarmEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** The recent worker log lines, oldest first. */
  logs(limit: number): LogLine[] {
    return this.ring.slice(-limit);
  }

  /** Resolves once every finished episode seen so far has been fetched (tests, shutdown). */
  episodesFetched(): Promise<void> {
    return this.fetcher.idle();
  }

  /** Restarts a local worker from its last checkpoint on the same port (the events stream resumes). */
  async restart(): Promise<void> {
    const local = this.conn.local;
    if (!local) throw new Error('only a local worker can be restarted');
    const session = this.ctx.session;
    this.stopping = true;
    session.patch({ activity: { phase: 'stopping', detail: 'checkpointing and stopping the worker', fraction: null } });
    await local.proc.stop();
    this.stopping = false;
    const launched = await launchLocalWorker(local.spec, session, {
      resume: true,
      port: local.port,
      onLine: (l) => this.addLog(l),
      onExit: (c, s) => this.exited(c, s),
    });
    this.conn = { ...this.conn, local: { ...local, proc: launched.proc } };
    session.recover('worker_exited', { activity: null });
  }

  /** Stops following; a local worker gets SIGTERM (it checkpoints), SIGKILL after the grace. */
  async dispose(opts: { stopWorker: boolean; graceMs?: number } = { stopWorker: true }): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.stopping = true;
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.fetcher.close();
    // The feed stays open while a local worker stops: its last log lines (the checkpoint) come as events.
    if (opts.stopWorker && this.conn.local) await this.conn.local.proc.stop(opts.graceMs);
    this.feed?.close();
    await this.conn.remote?.close();
    this.stepListeners.clear();
    this.eventListeners.clear();
    this.logsClosed = true;
  }

  private async follow(): Promise<void> {
    const status = await this.http.status();
    this.firstStatus = status;
    this.ctx.session.patch({ ...sessionFromStatus(status), workerUrl: this.conn.url });
    this.feed = await EventFeed.open(
      this.conn.url,
      this.conn.adminToken,
      {
        event: (e) => this.onEvent(e),
        // While disposing, a stopping worker's stream ends: not a failure to report.
        connection: (problem) => {
          if (this.disposed) return;
          if (problem === null) this.ctx.session.recover('events_lost');
          else this.ctx.session.fail('events_lost', problem);
        },
        error: (m) => void (this.disposed || this.note(m, 'stderr')),
      },
      this.conn.remote?.agent ? { agent: this.conn.remote.agent } : {},
    );
    this.healthTimer = setInterval(() => void this.checkHealth(), 3000);
    this.healthTimer.unref();
    void this.fetchVocab();
  }

  private async checkHealth(): Promise<void> {
    if (this.stopping) return;
    try {
      const h = await this.http.health(2500);
      if (this.ctx.session.get().error?.code === 'unreachable')
        this.ctx.session.recover('unreachable', { state: h.state });
    } catch (err) {
      if (this.stopping || this.disposed) return;
      const unreachable = err instanceof WorkbenchError && err.code === 'unreachable';
      this.ctx.session.fail(
        unreachable ? 'unreachable' : 'unhealthy',
        err instanceof Error ? err.message : String(err),
      );
    }
  }

  private async fetchVocab(): Promise<void> {
    const { store, runId } = this.ctx;
    try {
      if (store.hasVocab(runId)) return;
      const { pieces } = await this.http.call('vocab', {}, { timeoutMs: 120_000 });
      if (!this.disposed) this.ctx.batcher.push((s) => s.putVocab(runId, pieces));
    } catch (err) {
      this.note(
        `vocabulary not stored (${err instanceof Error ? err.message : String(err)}); the inspector shows token ids`,
        'stderr',
      );
    }
  }

  private watchExit(proc: WorkerProcess): void {
    proc.child.once('exit', (code, signal) => this.exited(code, signal));
  }

  private exited(code: number | null, signal: string | null): void {
    if (this.stopping || this.disposed) return;
    const how = signal ? `signal ${signal}` : `code ${code ?? '?'}`;
    this.note(`the worker exited (${how})`, 'stderr');
    this.ctx.session.fail('worker_exited', `the local worker exited (${how}); restart it or disconnect`, {
      state: 'failed',
    });
  }

  private onEvent(e: SwarmEvent): void {
    // The one place a worker's log events are stored (a local worker leaves them off its stderr).
    if (e.type === 'log')
      this.addLog({
        t: e.time,
        source: WORKER_SOURCE,
        stream: 'event',
        line: `[${e.level}] ${e.source}: ${e.message}`,
      });
    if (this.disposed) return;
    this.apply(this.folder.fold(e));
    if (e.type === 'step') for (const l of this.stepListeners) l(e.metrics.step);
    for (const l of this.eventListeners) l(e);
  }

  private apply(out: FoldOutput): void {
    const { runId, batcher, emit, session } = this.ctx;
    for (const row of out.episodes) {
      batcher.push((s) => s.putEpisode(runId, row));
      emit({ type: 'episode', runId, row: { ...row, hasTimelines: false } });
    }
    for (const id of out.finished) this.fetcher.add(id);
    for (const id of out.trained) this.fetcher.addTrained(id);
    for (const point of out.evals) {
      batcher.push((s) => s.putEval(runId, point));
      emit({ type: 'eval', runId, point });
    }
    for (const point of out.steps) {
      batcher.push((s) => s.putStep(runId, point));
      emit({ type: 'step', runId, point });
    }
    if (out.session) session.patch(out.session);
  }

  private storeFetched(e: FetchedEpisode): void {
    const { runId, batcher, emit } = this.ctx;
    batcher.push((s) => {
      s.putEpisode(runId, e.row);
      if (e.timelines.length > 0) s.putEpisodeTimelines(runId, e.row.episodeId, e.timelines, e.merged);
      if (e.metrics && Object.keys(e.metrics).length > 0) s.putEpisodeMetrics(runId, e.row.episodeId, e.metrics);
    });
    emit({ type: 'episode', runId, row: { ...e.row, hasTimelines: e.timelines.length > 0 } });
  }

  private storeTrained(s: FetchedSamples): void {
    const { runId, batcher, emit } = this.ctx;
    batcher.push((store) => {
      if (store.putEpisodeSamples(runId, s.episodeId, s.merged))
        emit({ type: 'trained', runId, episodeId: s.episodeId });
    });
  }

  private note(line: string, stream: LogLine['stream']): void {
    this.addLog({ t: Date.now(), source: WORKER_SOURCE, stream, line });
  }

  private addLog(l: LogLine): void {
    if (this.logsClosed) return;
    this.ring.push(l);
    if (this.ring.length > LOG_CAPACITY * 1.25) this.ring.splice(0, this.ring.length - LOG_CAPACITY);
    const { runId, batcher, emit } = this.ctx;
    batcher.push((s) => s.appendLog(runId, l));
    emit({ type: 'log', line: l });
  }
}
