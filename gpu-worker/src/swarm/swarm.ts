// The swarm service: the worker's state machine and everything clients do besides inference —
// claiming episodes (signed keys), ending and aborting them, client liveness and sync
// agreements, inactivity expiry, counters, evaluation results, the event stream and the status
// snapshot. Its state changes only through the methods below, each named for what happens. The
// step and the last step's metrics are the Trainer's, the weight version is the engine's.
import type { EngineInfo } from '../../../src/shared/engine-protocol';
import type { TrainingConfig, TrainingConfigPatch } from '../../../src/shared/options/index';
import type { SwarmEvent } from '../../../src/shared/swarm-events';
import type {
  ClaimRequest,
  ClaimResponse,
  ClientInfo,
  Counters,
  EndRequest,
  EndResponse,
  EvalResult,
  MergedEpisodeAnswer,
  ServingStatus,
  Status,
  StepMetrics,
  WorkerState,
} from '../../../src/shared/swarm-protocol';
import { mergeTimelines } from '../../../src/shared/timeline/index';
import type { RecordedCall } from '../rollout/record-call';
import type { WorkerConfig } from '../worker-config';
import { ClientRegistry, openCountsByClient } from './clients';
import type { CallLedger } from './completions';
import type { EngineView } from '../engine/engine-host';
import { assertOpen, claimRefusal, episodeIdOfKey, validEnd } from './episode-rules';
import { notFound } from '../errors';
import { EventBus, type LogLevel } from './event-bus';
import type { EventLog } from './event-log';
import { EpisodeRegistry, summarize, type Episode } from './episodes';
import { EvalResults } from './eval-results';
import { isEpisodeId, newEpisodeId, signEpisodeKey, verifyEpisodeKey } from './keys';
import { oldestWeightVersion, type DurablePool } from './pool';
import { emptyCounters, type RunFiles, type SavedState } from './run-dir';
import { TrainedSamples } from './trained-samples';
import { Trainer, type GenerationGate, type TrainerHost } from './trainer';

export interface SwarmDeps {
  config: WorkerConfig;
  modelName: string;
  secret: Buffer;
  files: RunFiles;
  engine: EngineView;
  /** Every generation goes through it; the trainer pauses it around every update; `stats` feeds status.serving. */
  generation: GenerationGate & { stats?(): ServingStatus };
  pool: DurablePool;
  saved: SavedState | null;
  /** The counters to count into (kept on disk by the worker); default: from `saved`. */
  counters?: Counters;
  now?: () => number;
  /** One log sink: lines also go out as `log` events. */
  log?: (line: string) => void;
  sweepIntervalMs?: number;
}

export class Swarm implements CallLedger, TrainerHost {
  config: WorkerConfig;
  readonly modelName: string;
  readonly trainer: Trainer;
  readonly bootId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  readonly now: () => number;
  private trainingConfig: TrainingConfig;
  private paused = false;
  private stopping = false;
  private readonly bus: EventBus;
  private episodes: EpisodeRegistry;
  private readonly clients: ClientRegistry;
  private counters: Counters;
  private evals: EvalResults;
  private trained: TrainedSamples;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly startedAt: number;

  constructor(private readonly deps: SwarmDeps) {
    this.config = deps.config;
    this.trainingConfig = { ...deps.config.training };
    this.modelName = deps.modelName;
    this.now = deps.now ?? Date.now;
    this.startedAt = this.now();
    this.bus = new EventBus(deps.log);
    this.episodes = new EpisodeRegistry(deps.config.retainFinished);
    this.clients = new ClientRegistry(deps.config.clientTimeoutS * 1000);
    this.counters = deps.counters ?? (deps.saved ? { ...deps.saved.counters } : emptyCounters());
    this.evals = new EvalResults(deps.saved?.eval ?? []);
    this.trained = new TrainedSamples(deps.config.retainFinished);
    this.trainer = new Trainer({
      config: () => this.trainingConfig,
      pool: deps.pool,
      engine: deps.engine,
      generation: deps.generation,
      sync: this.clients,
      host: this,
      events: this.bus,
      files: deps.files,
      saved: deps.saved,
      now: this.now,
      onStep: (step) => this.trained.record(step),
    });
    this.sweepTimer = setInterval(() => this.sweep(), deps.sweepIntervalMs ?? 1000);
    this.sweepTimer.unref();
  }

  get engine(): EngineView {
    return this.deps.engine;
  }

  /** The training settings in force (change them with `updateTraining`). */
  get training(): Readonly<TrainingConfig> {
    return this.trainingConfig;
  }

  get step(): number {
    return this.trainer.step;
  }

  /** The weight version of the engine's loaded weights (the engine owns it). */
  get weightVersion(): number {
    return this.deps.engine.weightVersion;
  }

  get lastStep(): StepMetrics | null {
    return this.trainer.lastStep;
  }

  /** The event log viewers replay from. */
  get events(): EventLog {
    return this.bus.events;
  }

  get state(): WorkerState {
    if (this.stopping) return 'stopping';
    const engine = this.deps.engine.status;
    if (engine === 'failed') return 'failed';
    if (engine === 'restarting' || engine === 'starting') return 'recovering';
    if (this.trainer.updating) return 'updating';
    if (this.paused) return 'paused';
    return 'running';
  }

  // ----- events and logs -----
  onEvent = (listener: (e: SwarmEvent) => void): (() => void) => this.bus.onEvent(listener);

  log = (level: LogLevel, source: string, message: string): void => this.bus.log(level, source, message);

  /** Announces the current state (with why it changed). */
  emitState(reason?: string): void {
    this.bus.emit({
      type: 'state',
      state: this.state,
      step: this.step,
      weightVersion: this.weightVersion,
      ...(reason ? { reason } : {}),
    });
  }

  // ----- lifecycle and settings -----
  /** The operator pauses training: claims are refused until `resume`. */
  get isPaused(): boolean {
    return this.paused;
  }
  pause(reason = 'paused by operator'): void {
    this.paused = true;
    this.emitState(reason);
  }

  resume(reason = 'started by operator'): void {
    this.paused = false;
    this.emitState(reason);
    this.trainer.poke();
  }

  /** The worker is shutting down: no new work from now on. */
  beginStop(reason?: string): void {
    this.stopping = true;
    if (reason !== undefined) this.emitState(reason);
  }

  /** An admin changes training settings (only the fields given). */
  updateTraining(patch: TrainingConfigPatch): Readonly<TrainingConfig> {
    this.trainingConfig = { ...this.trainingConfig, ...patch };
    this.log('info', 'control', `config changed: ${Object.keys(patch).join(', ') || 'nothing'}`);
    this.emitState('config changed');
    this.trainer.poke();
    return this.trainingConfig;
  }

  // ----- TrainerHost -----
  canUpdate = (): boolean => this.state === 'running';
  stateChanged = (reason: string): void => this.emitState(reason);
  count = (key: 'trainedEpisodes' | 'droppedEpisodes', n: number): void => void (this.counters[key] += n);
  snapshot = (): { counters: Counters; eval: EvalResult[] } => ({
    counters: { ...this.counters },
    eval: this.evals.list(),
  });

  // ----- episodes -----
  claim(req: ClaimRequest & { kind: 'train' | 'eval' }, baseUrl: string): ClaimResponse {
    const now = this.now();
    this.touchClient(req.clientId);
    const state = this.state;
    if (state !== 'running') {
      this.clients.count(req.clientId, 'refused');
      throw claimRefusal(state, this.trainer.expectedUpdateS());
    }
    const timeoutS = Math.min(req.timeoutS ?? this.config.episodeTimeoutS, this.config.maxEpisodeTimeoutS);
    const id = newEpisodeId();
    const tags = {
      ...(req.taskId !== undefined ? { taskId: req.taskId } : {}),
      ...(req.codeVersion !== undefined ? { codeVersion: req.codeVersion } : {}),
    };
    this.episodes.create({ id, clientId: req.clientId, kind: req.kind, timeoutMs: timeoutS * 1000, now, ...tags });
    this.counters.claimed += 1;
    this.clients.count(req.clientId, 'claimed');
    this.bus.emit({
      type: 'episode_started',
      episodeId: id,
      clientId: req.clientId,
      kind: req.kind,
      weightVersion: this.weightVersion,
      ...tags,
    });
    return {
      episodeId: id,
      baseUrl,
      apiKey: signEpisodeKey(this.deps.secret, id),
      model: this.modelName,
      weightVersion: this.weightVersion,
      kind: req.kind,
      timeoutS,
    };
  }

  /** The open episode an episode key names, or a 401/404/409 that says why not. */
  episodeForKey(key: string): Episode {
    const id = episodeIdOfKey(this.deps.secret, key);
    const ep = this.episodes.get(id);
    if (!ep)
      throw notFound(
        'episode_not_found',
        `episode ${id} is unknown to this server (it may predate a restart); claim a new one`,
      );
    assertOpen(ep);
    return ep;
  }

  /** Whether a key is an episode key of this server (signature only; the episode may be gone). */
  verifyKey = (key: string): ReturnType<typeof verifyEpisodeKey> => verifyEpisodeKey(this.deps.secret, key);

  /** Whether `key` is a valid key for episode `episodeId` (any status). */
  keyNamesEpisode(key: string, episodeId: string): boolean {
    const check = verifyEpisodeKey(this.deps.secret, key);
    return check.ok && check.episodeId === episodeId;
  }

  getEpisode(id: string): Episode {
    const ep = isEpisodeId(id) ? this.episodes.get(id) : undefined;
    if (!ep) throw notFound('episode_not_found', `no episode ${JSON.stringify(id.slice(0, 80))} on this server`);
    return ep;
  }

  /**
   * An episode's merged samples: what an update trained of it, or — not trained (yet) — a preview
   * merged with the current settings. A trained episode the registry has forgotten still answers.
   */
  mergedSamples(id: string): MergedEpisodeAnswer {
    const trained = this.trained.get(id);
    if (trained) return { samples: trained.samples, stats: trained.stats, trained: trained.info };
    const ep = this.getEpisode(id);
    const taskId = ep.result?.taskId ?? ep.taskId;
    const merged = mergeTimelines(ep.calls, {
      mode: this.trainingConfig.merge,
      level: this.trainingConfig.level,
      ...(taskId ? { taskIds: { [ep.id]: taskId } } : {}),
    });
    return { samples: merged.samples, stats: merged.stats, trained: null };
  }

  episodeSummaries = (filter: Parameters<EpisodeRegistry['list']>[0]): ReturnType<typeof summarize>[] =>
    this.episodes.list(filter).map(summarize);

  /** A call of an open episode starts: it counts in flight (the episode waits for it to end). */
  beginCall(ep: Episode): number {
    const index = this.episodes.beginCall(ep, this.now());
    this.touchClient(ep.clientId);
    return index;
  }

  /** The call finished: recorded into the episode and the counters, or (failed, cancelled) not. */
  endCall(ep: Episode, call: RecordedCall | null): void {
    if (!call) return this.episodes.endCall(ep, this.now());
    this.episodes.endCall(ep, this.now(), call.timeline, call.malformedToolCalls);
    this.counters.calls += 1;
    this.counters.completionTokens += call.completionTokens;
    this.counters.malformedToolCalls += call.malformedToolCalls;
    this.clients.count(ep.clientId, 'calls');
    this.clients.count(ep.clientId, 'completionTokens', call.completionTokens);
  }

  /** Ends an episode: waits for its in-flight calls, makes it durable in the pool, then answers. */
  async end(id: string, request: EndRequest): Promise<EndResponse> {
    const body = validEnd(request);
    const ep = this.getEpisode(id);
    assertOpen(ep);
    this.episodes.beginEnd(ep);
    this.touchClient(ep.clientId);
    await this.episodes.whenIdle(ep);
    const outcome = {
      reward: body.reward,
      ...(body.success !== undefined ? { success: body.success } : {}),
      ...(body.metrics ? { metrics: body.metrics } : {}),
    };
    const pooled = ep.kind === 'train' && ep.calls.length > 0;
    if (pooled) {
      try {
        await this.deps.pool.add({
          episodeId: ep.id,
          clientId: ep.clientId,
          taskId: body.taskId,
          endedAt: this.now(),
          calls: ep.calls,
          ...outcome,
        });
      } catch (err) {
        this.episodes.reopen(ep);
        throw err;
      }
    }
    this.episodes.finish(ep, 'ended', this.now(), { result: { taskId: body.taskId, ...outcome } });
    this.counters.ended += 1;
    this.clients.count(ep.clientId, 'ended');
    this.bus.emit({
      type: 'episode_ended',
      episodeId: ep.id,
      clientId: ep.clientId,
      kind: ep.kind,
      taskId: body.taskId,
      reward: body.reward,
      calls: ep.calls.length,
      pooled,
      ...(body.success !== undefined ? { success: body.success } : {}),
      ...(ep.codeVersion !== undefined ? { codeVersion: ep.codeVersion } : {}),
    });
    if (ep.kind === 'eval') this.recordEval(ep, body.reward, body.success);
    if (pooled) this.trainer.poke();
    return { episodeId: ep.id, accepted: true, pooled, calls: ep.calls.length };
  }

  abort(id: string, reason: string): { episodeId: string; aborted: true } {
    const ep = this.getEpisode(id);
    assertOpen(ep);
    this.abortEpisode(ep, reason);
    return { episodeId: ep.id, aborted: true };
  }

  private abortEpisode(ep: Episode, reason: string): void {
    this.episodes.finish(ep, 'aborted', this.now(), { reason });
    this.counters.aborted += 1;
    this.clients.count(ep.clientId, 'aborted');
    this.bus.emit({ type: 'episode_aborted', episodeId: ep.id, clientId: ep.clientId, reason, calls: ep.calls.length });
  }

  private recordEval(ep: Episode, reward: number, success: boolean | undefined): void {
    const version = ep.calls.length > 0 ? oldestWeightVersion(ep.calls) : this.weightVersion;
    this.bus.emit({ type: 'eval_result', result: this.evals.add(version, reward, success) });
  }

  /** An episode by id (open or finished and still retained), or undefined. */
  findEpisode = (id: string): Episode | undefined => this.episodes.get(id);
  openEpisodes = (): Episode[] => this.episodes.openEpisodes();
  /** The ended episodes waiting in the pool for an update. */
  pooled = (): ReturnType<DurablePool['list']> => this.deps.pool.list();
  get runDir(): string {
    return this.deps.files.dir;
  }
  /** The clients with their open episodes counted (one pass over the open episodes). */
  clientList = (): ClientInfo[] => this.clients.list(openCountsByClient(this.episodes.openEpisodes()));
  /** Whether a client is known (registered, or seen claiming an episode, and not pruned). */
  hasClient = (clientId: string): boolean => this.clients.has(clientId);
  /** The pool journal's health (whether accepted ends are being made durable). */
  get journalHealth(): DurablePool['health'] {
    return this.deps.pool.health;
  }

  evalResults(): EvalResult[] {
    return this.evals.list();
  }

  // ----- clients -----
  touchClient(clientId: string): void {
    const { joined } = this.clients.seen(clientId, this.now());
    if (joined) this.bus.emit({ type: 'client_joined', clientId });
  }

  registerClient(clientId: string, name?: string): void {
    const { joined } = this.clients.seen(clientId, this.now(), name);
    if (joined) this.bus.emit({ type: 'client_joined', clientId, ...(name ? { name } : {}) });
  }

  leaveClient = (clientId: string): void => void (this.clients.leave(clientId) && this.clientGone(clientId, 'left'));

  agreeSync(clientId: string): void {
    this.touchClient(clientId);
    this.clients.agree(clientId);
    this.trainer.poke();
  }

  private clientGone(clientId: string, reason: 'left' | 'timeout'): void {
    this.bus.emit({ type: 'client_left', clientId, reason });
    for (const ep of this.episodes.openEpisodes()) {
      if (ep.clientId === clientId && ep.status === 'open')
        this.abortEpisode(ep, reason === 'left' ? 'client_left' : 'client_timeout');
    }
    this.trainer.poke();
  }

  /** Expires idle episodes and marks silent clients gone (every `sweepIntervalMs`). */
  sweep(): void {
    const now = this.now();
    for (const ep of this.episodes.expired(now)) {
      this.episodes.finish(ep, 'expired', now, { reason: 'inactivity' });
      this.counters.expired += 1;
      this.clients.count(ep.clientId, 'expired');
      this.bus.emit({
        type: 'episode_expired',
        episodeId: ep.id,
        clientId: ep.clientId,
        idleS: (now - ep.lastActivityAt) / 1000,
        calls: ep.calls.length,
      });
    }
    for (const clientId of this.clients.sweep(now)) this.clientGone(clientId, 'timeout');
  }

  // ----- engine supervision hooks -----
  onEngineCrash(reason: string): void {
    this.log(
      'error',
      'engine',
      `engine process exited; in-flight calls fail with 503 and it is restarted from the last checkpoint (${reason.split('\n')[0]})`,
    );
    this.emitState('engine exited');
  }

  onEngineRecovered(info: EngineInfo): void {
    this.counters.engineRestarts += 1;
    this.trainer.rollbackToCheckpoint();
    this.log('info', 'engine', `engine restarted at step ${this.step} (weight version ${info.weightVersion})`);
    this.emitState('engine restarted');
    this.trainer.poke();
  }

  onEngineFailed = (reason: string): void => {
    this.log('error', 'engine', `engine could not be restarted: ${reason}`);
    this.emitState('engine failed');
  };

  // ----- status -----
  status(): Status {
    const pool = this.deps.pool.list();
    const engine = this.deps.engine;
    const checkpoint = this.trainer.lastCheckpoint;
    return {
      state: this.state,
      step: this.step,
      weightVersion: this.weightVersion,
      model: this.modelName,
      runDir: this.deps.files.dir,
      uptimeS: (this.now() - this.startedAt) / 1000,
      config: this.trainingConfig,
      progress: this.trainer.progress(),
      pool: { episodes: pool.length, tasks: new Set(pool.map((e) => e.taskId)).size },
      episodes: { open: this.episodes.openCount },
      counters: { ...this.counters },
      clients: this.clientList(),
      lastStep: this.lastStep,
      eval: this.evals.list(),
      engine: {
        alive: engine.status === 'ready',
        device: engine.info?.device ?? 'unknown',
        restarts: engine.restarts,
        lastError: engine.lastError?.split('\n')[0] ?? null,
      },
      lastCheckpoint: checkpoint ? { step: checkpoint.step, at: checkpoint.at } : null,
      eventSeq: this.bus.events.lastSeq,
      ...(this.deps.generation.stats ? { serving: this.deps.generation.stats() } : {}),
    };
  }

  /**
   * A fresh run in place of the current one (POST /swarm/v1/control/reset, run-reset.ts): a new
   * config, run folder, pool, counters and signing secret; step, evals and episodes start over.
   * Called inside `trainer.resetRun`, after the engine reloaded its initial weights.
   */
  replaceRun(next: {
    config: WorkerConfig;
    files: RunFiles;
    pool: DurablePool;
    secret: Buffer;
    counters: Counters;
  }): DurablePool {
    const old = this.deps.pool;
    Object.assign(this.deps, {
      config: next.config,
      files: next.files,
      pool: next.pool,
      secret: next.secret,
      saved: null,
    });
    this.config = next.config;
    this.trainingConfig = { ...next.config.training };
    this.episodes = new EpisodeRegistry(next.config.retainFinished);
    this.counters = next.counters;
    this.evals = new EvalResults([]);
    this.trained = new TrainedSamples(next.config.retainFinished);
    this.clients.clearAgreements();
    return old;
  }

  dispose(): void {
    clearInterval(this.sweepTimer);
    this.trainer.dispose();
    this.bus.dispose();
  }
}
