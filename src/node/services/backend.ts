// The workbench backend: every WorkbenchApi method, implemented with the services of the live run
// (WorkerService, ClientService, EvalLoop; the session itself is session-manager.ts's) and the Store
// (so past runs read the same way after a restart).
import { join } from 'node:path';
import {
  WorkbenchError,
  type Session,
  type WorkbenchBackend,
  type WorkbenchEvent,
  type WorkbenchParsedParams as P,
  type WorkbenchResult as R,
} from '../../shared/workbench-api';
import type { WorkerConfigPatch } from '../../shared/options/index';
import { CampaignService } from '../campaign/campaign-service';
import { regressBoard } from '../../shared/regress';
import { rewardFileOf } from '../../shared/inner-loop';
import { runPath } from '../run-paths';
import type { Store } from '../store/types';
import { draftTask } from '../task/task-draft';
import { exportRun, EXPORT_FORMATS } from './run-export';
import { listExamples } from './examples';
import { InnerLoopService } from './inner-loop-service';
import { LabelsService } from './labels-service';
import { liveRelabelLoop } from './live-relabel';
import type { RelabelLoop } from './relabel-loop';
import { RewardModelService } from './reward-model-service';
import { KnownCertificates } from './known-certificates';
import type { SshSettings } from './remote-attach';
import { SessionManager, type Live } from './session-manager';

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
  /**
   * Held-out eval episodes per eval of a local bundled-example run (default 16; 0: none), and how often (default every
   * 5 steps).
   */
  evalEpisodes?: number;
  evalEvery?: number;
  /** Iterated labelling in local runs: a round of `perRound` labels every `every` steps (live-relabel.ts). */
  relabel?: { every: number; perRound: number };
  workerStartTimeoutMs?: number;
  /** Who the inspector's labels are by (default $AGENTJET_LABEL_AUTHOR, else the OS user). */
  labelAuthor?: string;
  /** How remote workers are reached over SSH (default: `ssh` with the user's ~/.ssh/config). */
  ssh?: SshSettings;
}

export class Backend implements WorkbenchBackend {
  /** The one live session: connect, follow, disconnect (session-manager.ts). */
  private readonly sessions: SessionManager;
  private readonly campaignService: CampaignService;

  private readonly labelsService: LabelsService;
  private readonly innerLoop: InnerLoopService;
  private readonly rewardModelService: RewardModelService;
  /** The live local run's labelling rounds (with `relabel`), and how to stop following its steps. */
  private relabel: { loop: RelabelLoop; off: () => void } | null = null;

  constructor(private readonly o: BackendOptions) {
    // The certificates trusted per remote worker: `<data>/known-workers.json`.
    this.sessions = new SessionManager(o, new KnownCertificates(join(o.dataDir, 'known-workers.json')));
    this.campaignService = new CampaignService({ dataDir: o.dataDir, repoRoot: o.repoRoot, log: o.log });
    const flush = (): void => this.flush();
    this.innerLoop = new InnerLoopService({
      store: o.store,
      flush,
      cacheDir: join(o.dataDir, 'cache', 'clients'),
      nodePaths: [join(o.repoRoot, 'node_modules')],
      editedFile: (path, content) => this.requireLive().clients.editedFile(path, content),
      rewardPath: async () => rewardFileOf((await this.requireLive().clients.codeFiles()).files),
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
    return this.live?.ctx.session.get() ?? this.sessions.connecting?.get() ?? null;
  }

  async connectLocal(p: P<'connectLocal'>): Promise<Session> {
    await this.stopRelabel();
    const session = await this.sessions.connectLocal(p);
    this.startRelabel();
    return session;
  }

  connectRemote(p: P<'connectRemote'>): Promise<Session> {
    return this.sessions.connectRemote(p);
  }

  async disconnect(): Promise<R<'disconnect'>> {
    await this.stopRelabel();
    await this.sessions.disconnect();
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
  forkCall = (p: P<'forkCall'>) => this.innerLoop.forkWithRewards(p);
  saveProbe = (p: P<'saveProbe'>) => this.innerLoop.saveProbe(p.name, p.spec);
  runProbes = () => this.innerLoop.runProbes();
  probes = async (p: P<'probes'>) => this.innerLoop.probes(p.runId);
  regressBoard = async (p: P<'regressBoard'>) => ({
    figures: regressBoard(this.o.store.regressResults(p.bench), p.window),
  });

  /**
   * Reads of the run being connected: its row is stored once the worker serves, so until then it
   * has no data yet rather than being unknown.
   */
  private whileStarting<T>(runId: string, empty: T, read: () => T): T {
    try {
      return read();
    } catch (err) {
      if (err instanceof WorkbenchError && err.code === 'not_found' && this.sessions.connecting?.get().runId === runId)
        return empty;
      throw err;
    }
  }

  /** Disconnects (stopping a local worker with a checkpoint) and stops this workbench's campaign runners. */
  async dispose(): Promise<void> {
    await this.stopRelabel();
    await this.sessions.disconnect();
    await this.campaignService.dispose();
    await this.rewardModelService.dispose();
    await this.labelsService.dispose();
  }

  /** With `relabel`: the live run's rounds follow its steps (live-relabel.ts). */
  private startRelabel(): void {
    const live = this.live;
    if (!this.o.relabel || !live) return;
    const runId = live.ctx.runId;
    const loop = liveRelabelLoop({
      runId,
      ...this.o.relabel,
      store: this.o.store,
      flush: () => this.flush(),
      labels: this.labelsService,
      rewardModels: this.rewardModelService,
      notify: (line) => {
        this.o.log(`run ${runId}: ${line}`);
        const at = { t: Date.now(), source: { kind: 'worker' as const }, stream: 'event' as const };
        this.o.emit({ type: 'log', line: { ...at, line: `[info] rewards: ${line}` } }); // the workbench's log view
      },
    });
    this.relabel = { loop, off: live.worker.onStep((step) => loop.onStep(step)) };
  }

  private async stopRelabel(): Promise<void> {
    const r = this.relabel;
    this.relabel = null;
    r?.off();
    await r?.loop.stop();
  }

  private get live(): Live | null {
    return this.sessions.current;
  }

  private requireLive(): Live {
    return this.sessions.requireLive();
  }

  private flush(): void {
    this.sessions.flush();
  }
}
