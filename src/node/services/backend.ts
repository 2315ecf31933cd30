// The workbench backend: every WorkbenchApi method, implemented with the services of the live run
// (WorkerService, ClientService, EvalLoop) and the Store (so past runs read the same way after a
// restart). One session at a time: connecting while connected disconnects first; connect and
// disconnect are serialized.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  WorkbenchError,
  type LogLine,
  type Session,
  type WorkbenchBackend,
  type WorkbenchEvent,
  type WorkbenchParsedParams as P,
  type WorkbenchResult as R,
} from '../../shared/workbench-api';
import {
  trainingFromFields,
  workerFromFields,
  WorkerConfigPatchSchema,
  type WorkerConfigPatch,
} from '../../shared/options/index';
import { CampaignService } from '../campaign/campaign-service';
import { runPath } from '../run-paths';
import type { Store } from '../store/types';
import { draftTask } from '../task/task-draft';
import { ClientService } from './client-service';
import { CodeWorkspace } from './code-workspace';
import { EvalLoop } from './eval-loop';
import { exportRun, EXPORT_FORMATS } from './run-export';
import { listExamples, resolveExample, type ResolvedExample } from './examples';
import { InnerLoopService } from './inner-loop-service';
import { LabelsService } from './labels-service';
import { RewardModelService } from './reward-model-service';
import { SessionState, type RunContext } from './run-context';
import { KnownCertificates } from './known-certificates';
import { attachRemote, remoteConnection, remoteRun, type SshSettings } from './remote-attach';
import { launchLocalWorker, WorkerService, type Launched, type LocalWorkerSpec } from './worker-service';
import { WriteBatcher } from './write-batcher';

export interface BackendOptions {
  store: Store;
  dataDir: string;
  repoRoot: string;
  examplesDir: string;
  version: string;
  emit: (e: WorkbenchEvent) => void;
  log: (line: string) => void;
  /** Worker settings of every local worker (e.g. `{threads: 1, seed: 1}`), under what a connect sets. */
  workerConfig?: WorkerConfigPatch;
  /** Held-out eval episodes per eval of a local bundled-example run (default 16; 0: none), and how often (default every 5 steps). */
  evalEpisodes?: number;
  evalEvery?: number;
  workerStartTimeoutMs?: number;
  /** Who the inspector's labels are by (default $AGENTJET_LABEL_AUTHOR, else the OS user). */
  labelAuthor?: string;
  /** How remote workers are reached over SSH (default: `ssh` with the user's ~/.ssh/config). */
  ssh?: SshSettings;
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
  private readonly campaignService: CampaignService;

  private readonly labelsService: LabelsService;
  private readonly innerLoop: InnerLoopService;
  private readonly rewardModelService: RewardModelService;
  /** The certificates trusted per remote worker (`<data>/known-workers.json`). */
  private readonly known: KnownCertificates;

  constructor(private readonly o: BackendOptions) {
    this.known = new KnownCertificates(join(o.dataDir, 'known-workers.json'));
    this.campaignService = new CampaignService({ dataDir: o.dataDir, repoRoot: o.repoRoot, log: o.log });
    const flush = (): void => this.flush();
    this.innerLoop = new InnerLoopService({
      store: o.store,
      flush,
      cacheDir: join(o.dataDir, 'cache', 'clients'),
      nodePaths: [join(o.repoRoot, 'node_modules')],
      editedFile: (path, content) => this.requireLive().clients.editedFile(path, content),
      live: () => (this.live ? { runId: this.live.ctx.runId, http: this.live.worker.http } : null),
    });
    this.labelsService = new LabelsService({
      store: o.store,
      flush,
      ...(o.labelAuthor ? { author: o.labelAuthor } : {}),
    });
    this.rewardModelService = new RewardModelService({
      store: o.store,
      dataDir: o.dataDir,
      emit: o.emit,
      log: o.log,
      flush,
      live: () => (this.live ? { runId: this.live.ctx.runId, clients: this.live.clients } : null),
    });
  }

  /** The live run's services (tests, shutdown). */
  get current(): Live | null {
    return this.live;
  }

  async appInfo(): Promise<R<'appInfo'>> {
    return {
      name: 'AgentJet Workbench',
      version: this.o.version,
      platform: process.platform,
      transport: process.versions.electron ? 'electron' : 'websocket',
    };
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
    const r = await this.requireLive().clients.saveCode(p.files);
    if (!r.ok || !p.quarantinePrevious || r.previousCodeVersion === null) return r;
    return { ...r, quarantined: (await this.innerLoop.quarantine(r.previousCodeVersion)).episodeIds.length };
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
    return this.whileStarting(p.runId, { runId: p.runId, steps: [], evals: [], markers: [] }, () =>
      this.o.store.metrics(p.runId),
    );
  }

  async clients(): Promise<R<'clients'>> {
    return { clients: this.live?.clients.clients() ?? [] };
  }

  async clientAction(p: P<'clientAction'>): Promise<R<'clientAction'>> {
    await this.requireLive().clients.clientAction(p.clientId, p.action);
    return { ok: true };
  }

  async restartWorker(): Promise<R<'restartWorker'>> {
    const live = this.requireLive();
    if (!live.worker.isLocal) throw new WorkbenchError('unsupported', 'only a local worker can be restarted');
    await live.worker.restart();
    return { ok: true };
  }

  async logs(p: P<'logs'>): Promise<R<'logs'>> {
    const live = this.requireLive();
    let lines = p.source.kind === 'worker' ? live.worker.logs(p.limit) : live.clients.logs(p.source.clientId, p.limit);
    if (lines === null) {
      this.flush();
      lines = this.o.store.recentLogs(live.ctx.runId, p.source, p.limit);
    }
    return { lines };
  }

  async episodes(p: P<'episodes'>): Promise<R<'episodes'>> {
    this.flush();
    return this.whileStarting(p.runId, { total: 0, offset: p.offset, rows: [] }, () =>
      this.o.store.episodesPage(p.runId, p.filter, p.offset, p.limit, p.order),
    );
  }

  async episodeDetail(p: P<'episodeDetail'>): Promise<R<'episodeDetail'>> {
    this.flush();
    return this.o.store.episodeDetail(p.runId, p.episodeId);
  }

  async runs(): Promise<R<'runs'>> {
    this.flush();
    return { runs: this.o.store.listRuns(this.live?.ctx.runId ?? null) };
  }

  async exportRun(p: P<'exportRun'>): Promise<R<'exportRun'>> {
    this.flush();
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    const dir = runPath(join(this.o.dataDir, 'exports'), p.runId, `-${stamp}`);
    return { dir, files: exportRun(this.o.store, p.runId, dir, p.formats ?? EXPORT_FORMATS) };
  }

  // Campaigns and vibe training (src/node/campaign, src/node/task).
  campaigns = (): Promise<R<'campaigns'>> => this.campaignService.campaigns();
  campaign = (p: P<'campaign'>): Promise<R<'campaign'>> => this.campaignService.campaign(p);
  campaignStart = (p: P<'campaignStart'>): Promise<R<'campaignStart'>> => this.campaignService.campaignStart(p);
  campaignCommand = (p: P<'campaignCommand'>): Promise<R<'campaignCommand'>> => this.campaignService.campaignCommand(p);
  campaignDecision = (p: P<'campaignDecision'>): Promise<R<'campaignDecision'>> =>
    this.campaignService.campaignDecision(p);
  taskDraft = (p: P<'taskDraft'>): Promise<R<'taskDraft'>> =>
    draftTask(p, { repoRoot: this.o.repoRoot, cacheDir: join(this.o.dataDir, 'cache', 'clients'), log: this.o.log });
  // Learned rewards: labels-service.ts and reward-model-service.ts.
  labels = (p: P<'labels'>) => this.labelsService.labels(p);
  putLabel = (p: P<'putLabel'>) => this.labelsService.putLabel(p);
  deleteLabel = (p: P<'deleteLabel'>) => this.labelsService.deleteLabel(p);
  labelQueue = (p: P<'labelQueue'>) => this.labelsService.labelQueue(p);
  importLabels = (p: P<'importLabels'>) => this.labelsService.importLabels(p);
  exportLabels = (p: P<'exportLabels'>) => this.labelsService.exportLabels(p);
  episodeConversation = (p: P<'episodeConversation'>) => this.labelsService.episodeConversation(p);
  rewardModels = (p: P<'rewardModels'>) => this.rewardModelService.rewardModels(p);
  trainRewardModel = (p: P<'trainRewardModel'>) => this.rewardModelService.trainRewardModel(p);
  deployRewardModel = (p: P<'deployRewardModel'>) => this.rewardModelService.deployRewardModel(p);
  rewardComparison = (p: P<'rewardComparison'>) => this.rewardModelService.rewardComparison(p);
  // Quarantine, fork and probes: inner-loop-service.ts.
  rewardTry = (p: P<'rewardTry'>) => this.innerLoop.rewardTry(p);
  quarantine = (p: P<'quarantine'>) => this.innerLoop.quarantine(p.codeVersion);
  releaseQuarantine = (p: P<'releaseQuarantine'>) => this.innerLoop.release(p.codeVersion);
  quarantineList = (p: P<'quarantineList'>) => this.innerLoop.quarantineList(p.runId);
  forkCall = (p: P<'forkCall'>) => this.innerLoop.fork(p);
  saveProbe = (p: P<'saveProbe'>) => this.innerLoop.saveProbe(p.name, p.spec);
  runProbes = () => this.innerLoop.runProbes();
  probes = async (p: P<'probes'>) => this.innerLoop.probes(p.runId);

  /**
   * Reads of the run being connected: its row is stored once the worker serves, so until then it
   * has no data yet rather than being unknown.
   */
  private whileStarting<T>(runId: string, empty: T, read: () => T): T {
    try {
      return read();
    } catch (err) {
      if (err instanceof WorkbenchError && err.code === 'not_found' && this.pending?.get().runId === runId)
        return empty;
      throw err;
    }
  }

  /** Disconnects (stopping a local worker with a checkpoint) and stops this workbench's campaign runners. */
  async dispose(): Promise<void> {
    await this.serialize(() => this.teardown());
    await this.campaignService.dispose();
    await this.rewardModelService.dispose();
    await this.labelsService.dispose();
  }

  // ---------------------------------------------------------------------------------------------

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private requireLive(): Live {
    if (!this.live)
      throw new WorkbenchError('not_connected', 'not connected: connect to a local or remote worker first');
    return this.live;
  }

  private flush(): void {
    this.live?.ctx.batcher.flush();
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

/** The worker settings of a local connect: the workbench's, then what the connect set (the worker's defaults apply otherwise). */
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
