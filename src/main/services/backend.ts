// The workbench backend: every WorkbenchApi method, implemented with the services of the live run
// (WorkerService, ClientService, EvalLoop) and the Store (so past runs read the same way after a
// restart). One session at a time: connecting while connected disconnects first; connect and
// disconnect are serialized.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  WorkbenchError,
  type LocalConnect,
  type LogLine,
  type Session,
  type WorkbenchBackend,
  type WorkbenchEvent,
  type WorkbenchParsedParams as P,
  type WorkbenchResult as R,
} from '../../shared/workbench-api';
import type { Store } from '../store/types';
import { ClientService } from './client-service';
import { CodeWorkspace } from './code-workspace';
import { EvalLoop } from './eval-loop';
import { listExamples, resolveExample, type ResolvedExample } from './examples';
import { SessionState, type RunContext } from './run-context';
import { WorkerHttp, normalizeWorkerUrl } from './worker-http';
import { launchLocalWorker, WorkerService, WORKER_LOG_SOURCE, type Launched, type LocalWorkerSpec } from './worker-service';
import { WriteBatcher } from './write-batcher';

export interface BackendOptions {
  store: Store;
  dataDir: string;
  repoRoot: string;
  examplesDir: string;
  version: string;
  emit: (e: WorkbenchEvent) => void;
  log: (line: string) => void;
  /** Extra `agentjet worker` flags for local workers (e.g. `--threads 1 --seed 1`). */
  workerArgs?: string[];
  /** Held-out eval episodes per eval of a local bundled-example run (default 16; 0: none), and how often (default every 5 steps). */
  evalEpisodes?: number;
  evalEvery?: number;
  workerStartTimeoutMs?: number;
}

interface Live {
  ctx: RunContext;
  worker: WorkerService;
  clients: ClientService;
  evals: EvalLoop | null;
  offStep: () => void;
}


function newRunId(now = new Date()): string {
  return `run-${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class Backend implements WorkbenchBackend {
  private live: Live | null = null;
  /** The session while a connect is in progress (before `live` exists). */
  private pending: SessionState | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: BackendOptions) {}

  /** The live run's services (tests, shutdown). */
  get current(): Live | null {
    return this.live;
  }

  async appInfo(): Promise<R<'appInfo'>> {
    return { name: 'AgentJet Workbench', version: this.o.version, platform: process.platform, transport: process.versions.electron ? 'electron' : 'websocket' };
  }

  async examples(): Promise<R<'examples'>> {
    return { examples: listExamples(this.o.examplesDir) };
  }

  async session(): Promise<R<'session'>> {
    return this.live?.ctx.session.get() ?? this.pending?.get() ?? null;
  }

  connectLocal(p: P<'connectLocal'>): Promise<Session> {
    return this.serialize(async () => {
      await this.teardown();
      return this.startLocal(p);
    });
  }

  connectRemote(p: P<'connectRemote'>): Promise<Session> {
    return this.serialize(async () => {
      await this.teardown();
      return this.startRemote(p);
    });
  }

  async disconnect(): Promise<R<'disconnect'>> {
    await this.serialize(() => this.teardown());
    return { ok: true };
  }

  async codeFiles(): Promise<R<'codeFiles'>> {
    return this.requireLive().clients.codeFiles();
  }

  async saveCode(p: P<'saveCode'>): Promise<R<'saveCode'>> {
    return this.requireLive().clients.saveCode(p.files);
  }

  async codeVersions(p: P<'codeVersions'>): Promise<R<'codeVersions'>> {
    this.flush();
    return { versions: this.whileStarting(p.runId, [], () => this.o.store.listCodeVersions(p.runId)) };
  }

  async codeVersionFiles(p: P<'codeVersionFiles'>): Promise<R<'codeVersionFiles'>> {
    this.flush();
    return { files: this.o.store.codeVersionFiles(p.runId, p.codeVersion) };
  }

  async metrics(p: P<'metrics'>): Promise<R<'metrics'>> {
    this.flush();
    return this.whileStarting(p.runId, { runId: p.runId, steps: [], evals: [], markers: [] }, () => this.o.store.metrics(p.runId));
  }

  async clients(): Promise<R<'clients'>> {
    return { clients: this.live?.clients.clients() ?? [] };
  }

  /** A local client's restart/stop/start; `clientId: 'worker'` with `restart` restarts a local worker from its last checkpoint. */
  async clientAction(p: P<'clientAction'>): Promise<R<'clientAction'>> {
    const live = this.requireLive();
    if (p.clientId === WORKER_LOG_SOURCE) {
      if (p.action !== 'restart' || !live.worker.isLocal) throw new WorkbenchError('unsupported', 'only a local worker can be restarted (action "restart")');
      await live.worker.restart();
    } else {
      await live.clients.clientAction(p.clientId, p.action);
    }
    return { ok: true };
  }

  async logs(p: P<'logs'>): Promise<R<'logs'>> {
    const live = this.requireLive();
    let lines: LogLine[] | null;
    if (p.clientId === WORKER_LOG_SOURCE) lines = live.worker.logs(p.limit);
    else lines = live.clients.logs(p.clientId, p.limit);
    if (lines === null) {
      this.flush();
      lines = this.o.store.recentLogs(live.ctx.runId, p.clientId, p.limit);
    }
    return { lines };
  }

  async episodes(p: P<'episodes'>): Promise<R<'episodes'>> {
    this.flush();
    return this.whileStarting(p.runId, { total: 0, offset: p.offset, rows: [] }, () => this.o.store.episodesPage(p.runId, p.filter, p.offset, p.limit, p.order));
  }

  async episodeDetail(p: P<'episodeDetail'>): Promise<R<'episodeDetail'>> {
    this.flush();
    return this.o.store.episodeDetail(p.runId, p.episodeId);
  }

  async runs(): Promise<R<'runs'>> {
    this.flush();
    return { runs: this.o.store.listRuns(this.live?.ctx.runId ?? null) };
  }

  /**
   * Reads of the run being connected: its row is stored once the worker serves, so until then it
   * has no data yet rather than being unknown.
   */
  private whileStarting<T>(runId: string, empty: T, read: () => T): T {
    try {
      return read();
    } catch (err) {
      if (err instanceof WorkbenchError && err.code === 'not_found' && this.pending?.get().runId === runId) return empty;
      throw err;
    }
  }

  /** Disconnects (stopping a local worker with a checkpoint). */
  async dispose(): Promise<void> {
    await this.serialize(() => this.teardown());
  }

  // ---------------------------------------------------------------------------------------------

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private requireLive(): Live {
    if (!this.live) throw new WorkbenchError('not_connected', 'not connected: connect to a local or remote worker first');
    return this.live;
  }

  private flush(): void {
    this.live?.ctx.batcher.flush();
  }

  private newSession(runId: string, mode: Session['mode'], example: string | null, model: string): SessionState {
    const session = new SessionState(
      {
        runId, mode, workerUrl: '', state: 'connecting', model, example, step: 0, weightVersion: 0, strategy: null, progress: null, poolEpisodes: 0,
        activity: { phase: mode === 'local' ? 'starting_worker' : 'connecting', detail: '', fraction: null }, error: null, startedAt: Date.now(),
      },
      this.o.emit,
    );
    this.pending = session;
    this.o.emit({ type: 'session', session: session.get() });
    return session;
  }

  private context(runId: string, runDir: string, session: SessionState): RunContext {
    return {
      runId, runDir, store: this.o.store, session, emit: this.o.emit, log: this.o.log,
      batcher: new WriteBatcher(this.o.store, (m) => this.o.log(m)),
    };
  }

  private async startLocal(p: P<'connectLocal'>): Promise<Session> {
    const runId = newRunId();
    const runDir = join(this.o.dataDir, 'runs', runId);
    const example = resolveExample(p.example, { examplesDir: this.o.examplesDir, repoRoot: this.o.repoRoot, runDir });
    const model = p.model === 'builtin' ? 'builtin' : resolve(p.model);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const session = this.newSession(runId, 'local', example.label, model);
    const spec: LocalWorkerSpec = {
      bin: join(this.o.repoRoot, 'bin', 'agentjet.mjs'), cwd: this.o.repoRoot, runDir: join(runDir, 'worker'), args: [...workerFlags(p, model), ...(this.o.workerArgs ?? [])],
      tokens: { admin: randomBytes(24).toString('hex'), join: randomBytes(24).toString('hex') },
      ...(this.o.workerStartTimeoutMs ? { startTimeoutMs: this.o.workerStartTimeoutMs } : {}),
    };
    let launched: Launched;
    try {
      launched = await launchLocalWorker(spec, session);
    } catch (err) {
      this.pending = null;
      this.o.emit({ type: 'session', session: null });
      throw new WorkbenchError('worker_failed', `the local worker did not start: ${message(err)}`);
    }
    const port = Number(new URL(launched.url).port);
    try {
      this.o.store.createRun({ runId, name: `${example.label} · ${model === 'builtin' ? 'built-in model' : model}`, mode: 'local', workerUrl: launched.url, model, example: example.label, config: { connect: p, workerArgs: spec.args }, createdAt: session.get().startedAt });
    } catch (err) {
      await launched.proc.stop();
      this.pending = null;
      this.o.emit({ type: 'session', session: null });
      throw err;
    }
    const ctx = this.context(runId, runDir, session);
    return this.follow(ctx, { url: launched.url, adminToken: spec.tokens.admin, joinToken: spec.tokens.join, local: { proc: launched.proc, spec, port, attach: launched.attach } }, launched.startup, example, p.clients);
  }

  private async startRemote(p: P<'connectRemote'>): Promise<Session> {
    const url = normalizeWorkerUrl(p.url);
    const http = new WorkerHttp(url, p.adminToken);
    const probe = await http.probe();
    const runId = newRunId();
    const runDir = join(this.o.dataDir, 'runs', runId);
    const example = p.example !== undefined ? resolveExample(p.example, { examplesDir: this.o.examplesDir, repoRoot: this.o.repoRoot, runDir }) : null;
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const session = this.newSession(runId, 'remote', example?.label ?? null, probe.health.model);
    this.o.store.createRun({ runId, name: `remote ${new URL(url).host}`, mode: 'remote', workerUrl: url, model: probe.health.model, example: example?.label ?? null, config: { connect: { ...p, adminToken: undefined, joinToken: undefined } }, createdAt: session.get().startedAt });
    const ctx = this.context(runId, runDir, session);
    return this.follow(ctx, { url, adminToken: p.adminToken, joinToken: p.joinToken ?? null, local: null }, [], example, p.joinToken ? p.clients : 0);
  }

  /** Connects the services of a run whose worker serves; on failure everything started is stopped. */
  private async follow(ctx: RunContext, conn: Parameters<typeof WorkerService.connect>[1], startup: readonly LogLine[], example: ResolvedExample | null, clientCount: number): Promise<Session> {
    const { session } = ctx;
    let worker: WorkerService | null = null;
    let clients: ClientService | null = null;
    try {
      session.activity('connecting', `following ${conn.url}`);
      worker = await WorkerService.connect(ctx, conn, startup);
      const w = worker;
      session.activity('compiling', example ? `compiling ${example.label}` : '');
      const workspace = example ? await CodeWorkspace.open(example.workspace) : null;
      const groupSize = w.firstStatus?.config.groupSize ?? 1;
      clients = new ClientService({
        ctx, http: w.http, workspace, currentStep: () => session.get().step, events: (l) => w.onSwarmEvent(l),
        runner: conn.joinToken && workspace ? { serverUrl: conn.url, joinToken: conn.joinToken, count: clientCount, groupSize, cacheDir: join(this.o.dataDir, 'cache', 'clients'), nodePaths: [join(this.o.repoRoot, 'node_modules')] } : null,
      });
      session.activity('starting_clients', `${clientCount} client(s)`);
      await clients.start();
      const evals = conn.local && example?.bundled && conn.joinToken && (this.o.evalEpisodes ?? 16) > 0
        ? new EvalLoop({ url: conn.url, joinToken: conn.joinToken, task: example.bundled.task, episodes: this.o.evalEpisodes ?? 16, every: this.o.evalEvery ?? 5, log: (l) => this.o.log(l) })
        : null;
      const offStep = w.onStep((step) => evals?.onStep(step));
      evals?.start();
      this.live = { ctx, worker: w, clients, evals, offStep };
      this.pending = null;
      session.patch({ activity: null });
      return session.get();
    } catch (err) {
      await clients?.dispose().catch(() => undefined);
      if (worker) await worker.dispose({ stopWorker: true });
      else await conn.local?.proc.stop();
      ctx.batcher.close();
      this.o.store.endRun(ctx.runId, Date.now());
      this.pending = null;
      this.o.emit({ type: 'session', session: null });
      if (err instanceof WorkbenchError) throw err;
      throw new WorkbenchError('connect_failed', message(err));
    }
  }

  private async teardown(): Promise<void> {
    const live = this.live;
    if (!live) return;
    const { ctx } = live;
    ctx.session.patch({ activity: { phase: 'stopping', detail: live.worker.isLocal ? 'stopping the clients and checkpointing the worker' : 'detaching', fraction: null } });
    live.evals?.stop();
    live.offStep();
    // An eval in flight ends its episodes while the worker still serves (bounded: it is not waited for long).
    if (live.evals) await Promise.race([live.evals.idle(), new Promise((r) => setTimeout(r, 3000).unref())]);
    await live.clients.dispose().catch((err: unknown) => this.o.log(`clients: ${message(err)}`));
    await live.worker.dispose({ stopWorker: true }).catch((err: unknown) => this.o.log(`worker: ${message(err)}`));
    ctx.batcher.close();
    this.o.store.endRun(ctx.runId, Date.now());
    this.live = null;
    this.o.emit({ type: 'clients', clients: [] });
    this.o.emit({ type: 'session', session: null });
  }
}

/** The worker flags of a local connect (only what was given: the worker's defaults apply otherwise). */
export function workerFlags(p: Partial<LocalConnect>, model: string): string[] {
  const flags = ['--model', model];
  if (p.strategy) flags.push('--strategy', p.strategy);
  if (p.batch !== undefined) flags.push('--batch', String(p.batch));
  if (p.groupSize !== undefined) flags.push('--group-size', String(p.groupSize));
  if (p.lr !== undefined) flags.push('--lr', String(p.lr));
  if (p.maxTokens !== undefined) flags.push('--max-tokens', String(p.maxTokens));
  if (p.trainMode) flags.push('--train-mode', p.trainMode);
  if (p.loraR !== undefined) flags.push('--lora-r', String(p.loraR));
  if (p.loraAlpha !== undefined) flags.push('--lora-alpha', String(p.loraAlpha));
  if (p.loraTargets) flags.push('--lora-targets', p.loraTargets);
  if (p.engineProcs !== undefined) flags.push('--engine-procs', String(p.engineProcs));
  return flags;
}
