// The swarm's state and every read of it: the worker state, the episodes (by key or id, summaries,
// merged samples), clients, evaluation results, the pool, and the status snapshot. `Swarm`
// (swarm.ts) extends it with everything that changes the state. An episode's merged samples are
// what an update trained of it, or — not trained (yet) — what an update under the current settings
// would train of it, from the trainer's own sample builder (`previewSamples`).
import type { TrainingConfig } from '../../../src/shared/options/index';
import type {
  ClientInfo,
  Counters,
  EvalResult,
  MergedEpisodeAnswer,
  ServingStatus,
  Status,
  StepMetrics,
  WorkerState,
} from '../../../src/shared/swarm-protocol';
import type { EngineView } from '../engine/engine-host';
import { notFound } from '../errors';
import type { ScoredEpisode } from '../trainer/train-samples';
import { previewSamples } from '../trainer/train-step';
import { scoredEpisode } from './score-ahead';
import type { WorkerConfig } from '../worker-config';
import { ClientRegistry, openCountsByClient } from './clients';
import { assertOpen, episodeIdOfKey } from './episode-rules';
import { EventBus } from './event-bus';
import type { EventLog } from './event-log';
import { EpisodeRegistry, summarize, type Episode } from './episodes';
import { EvalResults } from './eval-results';
import { isEpisodeId, verifyEpisodeKey } from './keys';
import type { DurablePool, PoolEntry } from './pool';
import { emptyCounters, type RunFiles, type SavedState } from './run-dir';
import { TrainedSamples } from './trained-samples';
import type { Trainer } from './trainer';
import type { GenerationGate } from './trainer-ports';
import type { Teacher } from '../trainer/teacher';

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
  /** On-policy distillation's teacher (--teacher-url): the trainer mixes its logprobs into the advantages. */
  teacher?: Teacher | null;
  /** The counters to count into (kept on disk by the worker); default: from `saved`. */
  counters?: Counters;
  now?: () => number;
  /** One log sink: lines also go out as `log` events. */
  log?: (line: string) => void;
  sweepIntervalMs?: number;
}

/**
 * The episodes an update would train `ep` with, in pool order: a pooled episode's task group, or for
 * an open train episode the pooled episodes of its task and it (last) — under the group strategies
 * (C2, C3) only its group of `groupSize`, as they batch them. Any other episode (eval, no task yet,
 * or finished and out of the pool) alone.
 */
export function taskGroupOf(
  ep: Episode,
  pooled: readonly PoolEntry[],
  t: Pick<TrainingConfig, 'strategy' | 'groupSize'>,
): ScoredEpisode[] {
  const taskId = ep.result?.taskId ?? ep.taskId;
  const self: ScoredEpisode = {
    episodeId: ep.id,
    groupKey: taskId ?? ep.id,
    ...(ep.role !== undefined ? { role: ep.role } : {}),
    reward: ep.result?.reward ?? 0,
    timelines: ep.calls,
  };
  const isPooled = pooled.some((e) => e.episodeId === ep.id);
  if (ep.kind !== 'train' || taskId === undefined || (!isPooled && ep.status !== 'open')) return [self];
  const task = pooled.filter((e) => e.taskId === taskId).map(scoredEpisode);
  if (!isPooled) task.push(self);
  if (t.strategy !== 'C2' && t.strategy !== 'C3') return task;
  const at = task.findIndex((e) => e.episodeId === ep.id);
  const start = at - (at % t.groupSize);
  return task.slice(start, start + t.groupSize);
}

export abstract class SwarmReads {
  config: WorkerConfig;
  readonly modelName: string;
  abstract readonly trainer: Trainer;
  readonly bootId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  readonly now: () => number;
  protected trainingConfig: TrainingConfig;
  protected paused = false;
  protected stopping = false;
  protected readonly bus: EventBus;
  protected episodes: EpisodeRegistry;
  protected readonly clients: ClientRegistry;
  protected counters: Counters;
  protected evals: EvalResults;
  protected trained: TrainedSamples;
  private readonly startedAt: number;

  constructor(protected readonly deps: SwarmDeps) {
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
    // --async: generation and claims go on during an update (the staleness bound holds them instead)
    if (this.trainer.updating && !this.deps.config.async) return 'updating';
    if (this.paused) return 'paused';
    return 'running';
  }

  /** The operator paused training: claims are refused until `resume`. */
  get isPaused(): boolean {
    return this.paused;
  }

  // ----- episodes -----
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
   * An episode's merged samples: what an update trained of it, or — not trained (yet) — what an
   * update under the current settings would train of it, its task group packed as training packs it.
   * A trained episode the registry has forgotten still answers.
   */
  mergedSamples(id: string): MergedEpisodeAnswer {
    const trained = this.trained.get(id);
    if (trained) return { samples: trained.samples, stats: trained.stats, trained: trained.info };
    const ep = this.getEpisode(id);
    const group = taskGroupOf(ep, this.deps.pool.list(), this.trainingConfig);
    const preview = previewSamples(group, ep.id, this.trainingConfig, ep.status !== 'open');
    return { ...preview, trained: null };
  }

  episodeSummaries = (filter: Parameters<EpisodeRegistry['list']>[0]): ReturnType<typeof summarize>[] =>
    this.episodes.list(filter).map(summarize);

  /** An episode by id (open or finished and still retained), or undefined. */
  findEpisode = (id: string): Episode | undefined => this.episodes.get(id);
  openEpisodes = (): Episode[] => this.episodes.openEpisodes();
  /** The ended episodes waiting in the pool for an update. */
  pooled = (): ReturnType<DurablePool['list']> => this.deps.pool.list();
  /** The episodes held out by quarantines, by code version. */
  quarantinedVersions = (): ReturnType<DurablePool['quarantined']> => this.deps.pool.quarantined();
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
      pool: {
        episodes: pool.length,
        tasks: new Set(pool.map((e) => e.taskId)).size,
        quarantined: this.deps.pool.quarantined().reduce((n, q) => n + q.episodeIds.length, 0),
      },
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
}
