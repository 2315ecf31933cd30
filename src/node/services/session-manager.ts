// The workbench's one live session: connecting a local worker (launched here) or a remote one
// (attached over HTTPS or SSH), following it with the run's services (WorkerService, ClientService,
// EvalLoop), and tearing it down. Connect and disconnect are serialized; connecting while connected
// disconnects first. The Backend (backend.ts) answers the workbench API with it.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  trainingFromFields,
  workerFromFields,
  WorkerConfigPatchSchema,
  type WorkerConfigPatch,
} from '../../shared/options/index';
import {
  WorkbenchError,
  type LogLine,
  type Session,
  type WorkbenchParsedParams as P,
} from '../../shared/workbench-api';
import { runPath } from '../run-paths';
import type { BackendOptions } from './backend';
import { ClientService } from './client-service';
import { CodeWorkspace } from './code-workspace';
import { EvalLoop } from './eval-loop';
import { resolveExample, type ResolvedExample } from './examples';
import type { KnownCertificates } from './known-certificates';
import { attachRemote, remoteConnection, remoteRun } from './remote-attach';
import { HackingWatch } from './hacking-watch';
import { SessionState, type RunContext } from './run-context';
import { launchLocalWorker, WorkerService, type Launched, type LocalWorkerSpec } from './worker-service';
import { WriteBatcher } from './write-batcher';

export interface Live {
  ctx: RunContext;
  worker: WorkerService;
  clients: ClientService;
  evals: EvalLoop | null;
  offStep: () => void;
}

function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class SessionManager {
  private live: Live | null = null;
  /** The session while a connect is in progress (before `live` exists). */
  private pending: SessionState | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly o: BackendOptions,
    /** The certificates trusted per remote worker. */
    private readonly known: KnownCertificates,
  ) {}

  /** The live run's services, or null when not connected. */
  get current(): Live | null {
    return this.live;
  }

  /** The session being connected (before its run's services exist), or null. */
  get connecting(): SessionState | null {
    return this.pending;
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

  disconnect(): Promise<void> {
    return this.serialize(() => this.teardown());
  }

  requireLive(): Live {
    if (!this.live)
      throw new WorkbenchError('not_connected', 'not connected: connect to a local or remote worker first');
    return this.live;
  }

  /** Writes the live run's batched rows now (before a read of the store). */
  flush(): void {
    this.live?.ctx.batcher.flush();
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private newSession(runId: string, mode: Session['mode'], example: string | null, model: string): SessionState {
    const session = new SessionState(
      {
        runId,
        mode,
        workerUrl: '',
        state: 'connecting',
        model,
        example,
        step: 0,
        weightVersion: 0,
        strategy: null,
        progress: null,
        poolEpisodes: 0,
        activity: { phase: mode === 'local' ? 'starting_worker' : 'connecting', detail: '', fraction: null },
        error: null,
        startedAt: Date.now(),
      },
      this.o.emit,
    );
    this.pending = session;
    this.o.emit({ type: 'session', session: session.get() });
    return session;
  }

  private context(runId: string, runDir: string, session: SessionState): RunContext {
    return {
      runId,
      runDir,
      store: this.o.store,
      session,
      emit: this.o.emit,
      log: this.o.log,
      batcher: new WriteBatcher(this.o.store, (m) => this.o.log(m)),
    };
  }

  private async startLocal(p: P<'connectLocal'>): Promise<Session> {
    const runId = newRunId();
    const runDir = runPath(join(this.o.dataDir, 'runs'), runId);
    const example = resolveExample(p.example, { examplesDir: this.o.examplesDir, repoRoot: this.o.repoRoot, runDir });
    const model = p.model === 'builtin' ? 'builtin' : resolve(p.model);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    const session = this.newSession(runId, 'local', example.label, model);
    const spec: LocalWorkerSpec = {
      bin: join(this.o.repoRoot, 'bin', 'agentjet.mjs'),
      cwd: this.o.repoRoot,
      runDir: join(runDir, 'worker'),
      configFile: join(runDir, 'worker-launch.json'),
      config: localWorkerConfig(p, model, this.o.workerConfig),
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
      this.o.store.createRun({
        runId,
        name: `${example.label} · ${model === 'builtin' ? 'built-in model' : model}`,
        mode: 'local',
        workerUrl: launched.url,
        model,
        example: example.label,
        config: { connect: p, worker: spec.config },
        createdAt: session.get().startedAt,
      });
    } catch (err) {
      await launched.proc.stop();
      this.pending = null;
      this.o.emit({ type: 'session', session: null });
      throw err;
    }
    const ctx = this.context(runId, runDir, session);
    return this.follow(
      ctx,
      {
        url: launched.url,
        adminToken: spec.tokens.admin,
        joinToken: spec.tokens.join,
        local: { proc: launched.proc, spec, port, attach: launched.attach },
      },
      launched.startup,
      example,
      p.clients,
    );
  }

  private async startRemote(p: P<'connectRemote'>): Promise<Session> {
    const remote = await attachRemote(p, { known: this.known, ssh: this.o.ssh ?? {} });
    let ctx: RunContext;
    let example: ResolvedExample | null;
    try {
      const runId = newRunId();
      const runDir = runPath(join(this.o.dataDir, 'runs'), runId);
      example =
        p.example !== undefined
          ? resolveExample(p.example, { examplesDir: this.o.examplesDir, repoRoot: this.o.repoRoot, runDir })
          : null;
      mkdirSync(runDir, { recursive: true, mode: 0o700 });
      const session = this.newSession(runId, 'remote', example?.label ?? null, remote.probe.health.model);
      session.patch({ transport: remote.transport });
      remote.onLost((why) => session.fail('unreachable', why));
      this.o.store.createRun(remoteRun(p, remote, runId, example?.label ?? null, session.get().startedAt));
      ctx = this.context(runId, runDir, session);
    } catch (err) {
      await remote.close();
      throw err;
    }
    return this.follow(ctx, remoteConnection(p, remote, ctx.runDir), [], example, p.joinToken ? p.clients : 0);
  }

  /** Connects the services of a run whose worker serves; on failure everything started is stopped. */
  private async follow(
    ctx: RunContext,
    conn: Parameters<typeof WorkerService.connect>[1],
    startup: readonly LogLine[],
    example: ResolvedExample | null,
    clientCount: number,
  ): Promise<Session> {
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
        ctx,
        http: w.http,
        workspace,
        currentStep: () => session.get().step,
        events: (l) => w.onSwarmEvent(l),
        runner:
          conn.joinToken && workspace
            ? {
                serverUrl: conn.url,
                caFile: conn.remote?.caFile ?? null,
                joinToken: conn.joinToken,
                count: clientCount,
                groupSize,
                cacheDir: join(this.o.dataDir, 'cache', 'clients'),
                nodePaths: [join(this.o.repoRoot, 'node_modules')],
              }
            : null,
      });
      session.activity('starting_clients', `${clientCount} client(s)`);
      await clients.start();
      const evals =
        conn.local && example?.bundled && conn.joinToken && (this.o.evalEpisodes ?? 16) > 0
          ? new EvalLoop({
              url: conn.url,
              joinToken: conn.joinToken,
              task: example.bundled.task,
              episodes: this.o.evalEpisodes ?? 16,
              every: this.o.evalEvery ?? 5,
              log: (l) => this.o.log(l),
            })
          : null;
      // The reward-hacking alarm as an event: re-judged after every step (runs without rm_score never ring).
      const hacking = new HackingWatch({
        runId: ctx.runId,
        store: this.o.store,
        flush: () => ctx.batcher.flush(),
        emit: (e) => this.o.emit(e),
        log: (l) => this.o.log(`run ${ctx.runId}: ${l}`),
      });
      const offStep = w.onStep((step) => {
        evals?.onStep(step);
        hacking.check();
      });
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
    ctx.session.patch({
      activity: {
        phase: 'stopping',
        detail: live.worker.isLocal ? 'stopping the clients and checkpointing the worker' : 'detaching',
        fraction: null,
      },
    });
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

/**
 * The worker settings of a local connect: the workbench's, then what the connect set (the worker's defaults apply
 * otherwise).
 */
export function localWorkerConfig(
  p: Readonly<Record<string, unknown>>,
  model: string,
  base: WorkerConfigPatch = {},
): WorkerConfigPatch {
  return WorkerConfigPatchSchema.parse({
    ...base,
    ...workerFromFields(p),
    model,
    training: { ...base.training, ...trainingFromFields(p) },
  });
}
