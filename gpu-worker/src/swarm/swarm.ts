// The swarm service: the worker's state machine and everything clients do besides inference —
// claiming episodes (signed keys), ending and aborting them, client liveness and sync
// agreements, inactivity expiry, counters, evaluation results, the event stream and the status
// snapshot. Training itself lives in the Trainer; inference in the CompletionService.
import type { EngineInfo } from '../../../src/shared/engine-protocol';
import type { SwarmEvent, SwarmEventBody } from '../../../src/shared/swarm-events';
import type {
  ClaimRequest, ClaimResponse, Counters, EndRequest, EndResponse, EvalResult, Status, StepMetrics, TrainingConfig, WorkerState,
} from '../../../src/shared/swarm-protocol';
import type { GenerationGate } from '../engine/admission';
import type { WorkerConfig } from '../worker-config';
import { ClientRegistry } from './clients';
import type { EngineHost } from './engine-host';
import { conflict, notFound, unauthorized, unavailable } from './errors';
import { EpisodeRegistry, summarize, type Episode } from './episodes';
import { EventLog } from './event-log';
import { isEpisodeId, newEpisodeId, signEpisodeKey, verifyEpisodeKey } from './keys';
import { oldestWeightVersion, type DurablePool } from './pool';
import { emptyCounters, type RunFiles, type SavedState } from './run-dir';
import { Trainer } from './trainer';

export interface SwarmDeps {
  config: WorkerConfig;
  modelName: string;
  secret: Buffer;
  files: RunFiles;
  engine: EngineHost;
  /** The admission gate every generation goes through. */
  scheduler: GenerationGate;
  pool: DurablePool;
  saved: SavedState | null;
  now?: () => number;
  /** One log sink: lines also go out as `log` events. */
  log?: (line: string) => void;
  sweepIntervalMs?: number;
}

interface EvalAccumulator {
  episodes: number;
  rewardSum: number;
  successes: number;
  withSuccess: number;
}

export class Swarm {
  readonly config: WorkerConfig;
  training: TrainingConfig;
  readonly modelName: string;
  readonly episodes: EpisodeRegistry;
  readonly clients: ClientRegistry;
  readonly events = new EventLog();
  readonly trainer: Trainer;
  readonly bootId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  counters: Counters;
  step: number;
  weightVersion: number;
  lastStep: StepMetrics | null;
  paused = false;
  updating = false;
  stopping = false;
  private readonly evalByVersion = new Map<number, EvalAccumulator>();
  private readonly listeners = new Set<(e: SwarmEvent) => void>();
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly startedAt: number;
  readonly now: () => number;

  constructor(readonly deps: SwarmDeps) {
    this.config = deps.config;
    this.training = { ...deps.config.training };
    this.modelName = deps.modelName;
    this.now = deps.now ?? Date.now;
    this.startedAt = this.now();
    this.episodes = new EpisodeRegistry(deps.config.retainFinished);
    this.clients = new ClientRegistry(deps.config.clientTimeoutS * 1000);
    this.counters = deps.saved ? { ...deps.saved.counters } : emptyCounters();
    this.step = deps.saved?.step ?? 0;
    this.weightVersion = deps.engine.info?.weightVersion ?? deps.saved?.weightVersion ?? 0;
    this.lastStep = deps.saved?.lastStep ?? null;
    for (const r of deps.saved?.eval ?? []) {
      this.evalByVersion.set(r.weightVersion, { episodes: r.episodes, rewardSum: r.rewardMean * r.episodes, successes: (r.successRate ?? 0) * r.episodes, withSuccess: r.successRate === null ? 0 : r.episodes });
    }
    this.trainer = new Trainer(this, deps.saved);
    this.sweepTimer = setInterval(() => this.sweep(), deps.sweepIntervalMs ?? 1000);
    this.sweepTimer.unref();
  }

  get engine(): EngineHost {
    return this.deps.engine;
  }

  get scheduler(): GenerationGate {
    return this.deps.scheduler;
  }

  get pool(): DurablePool {
    return this.deps.pool;
  }

  get state(): WorkerState {
    if (this.stopping) return 'stopping';
    const engine = this.deps.engine.status;
    if (engine === 'failed') return 'failed';
    if (engine === 'restarting' || engine === 'starting') return 'recovering';
    if (this.updating) return 'updating';
    if (this.paused) return 'paused';
    return 'running';
  }

  // ----- events and logs -----

  emit(body: SwarmEventBody): void {
    const event = this.events.append(body);
    for (const listener of this.listeners) listener(event);
  }

  onEvent(listener: (e: SwarmEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  log(level: 'debug' | 'info' | 'warn' | 'error', source: string, message: string): void {
    this.deps.log?.(`[${level}] ${source}: ${message}`);
    this.emit({ type: 'log', level, source, message });
  }

  emitState(reason?: string): void {
    this.emit({ type: 'state', state: this.state, step: this.step, weightVersion: this.weightVersion, ...(reason ? { reason } : {}) });
  }

  // ----- episodes -----

  /** Refuses new work unless running, with a retry hint. */
  private assertAcceptingClaims(): void {
    const state = this.state;
    if (state === 'running') return;
    const hints: Record<Exclude<WorkerState, 'running'>, [string, string, number]> = {
      updating: ['updating', 'the policy is being updated; claim again after the update', this.trainer.expectedUpdateS()],
      paused: ['paused', 'training is paused by the operator; claim again later', 5],
      recovering: ['recovering', 'the engine is restarting from the last checkpoint; claim again shortly', 5],
      starting: ['starting', 'the worker is starting', 5],
      checkpointing: ['checkpointing', 'a checkpoint is being written', 2],
      stopping: ['stopping', 'the worker is shutting down', 30],
      failed: ['engine_failed', 'the engine could not be restarted; the worker needs attention', 30],
    };
    const [code, message, retry] = hints[state];
    throw unavailable(code, message, retry);
  }

  claim(req: ClaimRequest & { kind: 'train' | 'eval' }, baseUrl: string): ClaimResponse {
    const now = this.now();
    this.touchClient(req.clientId);
    try {
      this.assertAcceptingClaims();
    } catch (err) {
      this.clients.count(req.clientId, 'refused');
      throw err;
    }
    const timeoutS = Math.min(req.timeoutS ?? this.config.episodeTimeoutS, this.config.maxEpisodeTimeoutS);
    const id = newEpisodeId();
    this.episodes.create({ id, clientId: req.clientId, kind: req.kind, timeoutMs: timeoutS * 1000, now, ...(req.taskId !== undefined ? { taskId: req.taskId } : {}), ...(req.codeVersion !== undefined ? { codeVersion: req.codeVersion } : {}) });
    this.counters.claimed += 1;
    this.clients.count(req.clientId, 'claimed');
    this.emit({ type: 'episode_started', episodeId: id, clientId: req.clientId, kind: req.kind, weightVersion: this.weightVersion, ...(req.taskId !== undefined ? { taskId: req.taskId } : {}), ...(req.codeVersion !== undefined ? { codeVersion: req.codeVersion } : {}) });
    return { episodeId: id, baseUrl, apiKey: signEpisodeKey(this.deps.secret, id), model: this.modelName, weightVersion: this.weightVersion, kind: req.kind, timeoutS };
  }

  /** The open episode an episode key names, or a 401/404/409 that says why not. */
  episodeForKey(key: string): Episode {
    const check = verifyEpisodeKey(this.deps.secret, key);
    if (!check.ok) {
      throw unauthorized(
        check.reason === 'malformed' ? 'invalid_api_key' : 'invalid_episode_key',
        check.reason === 'malformed' ? 'the API key is not an episode key of this server; claim an episode first (POST /swarm/v1/episodes)' : 'the episode key is not valid (bad signature)',
      );
    }
    const ep = this.episodes.get(check.episodeId);
    if (!ep) throw notFound('episode_not_found', `episode ${check.episodeId} is unknown to this server (it may predate a restart); claim a new one`);
    this.assertOpen(ep);
    return ep;
  }

  /** Whether `key` is a valid key for episode `episodeId` (any status). */
  keyNamesEpisode(key: string, episodeId: string): boolean {
    const check = verifyEpisodeKey(this.deps.secret, key);
    return check.ok && check.episodeId === episodeId;
  }

  assertOpen(ep: Episode): void {
    switch (ep.status) {
      case 'open':
        return;
      case 'ending':
      case 'ended':
        throw conflict('episode_ended', `episode ${ep.id} has ended; claim a new episode`);
      case 'aborted':
        throw conflict('episode_aborted', `episode ${ep.id} was aborted${ep.reason ? ` (${ep.reason})` : ''}; claim a new episode`);
      case 'expired':
        throw conflict('episode_expired', `episode ${ep.id} expired after ${Math.round(ep.timeoutMs / 1000)} s without activity; claim a new episode`);
    }
  }

  getEpisode(id: string): Episode {
    const ep = isEpisodeId(id) ? this.episodes.get(id) : undefined;
    if (!ep) throw notFound('episode_not_found', `no episode ${JSON.stringify(id.slice(0, 80))} on this server`);
    return ep;
  }

  touchClient(clientId: string): void {
    const { joined } = this.clients.seen(clientId, this.now());
    if (joined) this.emit({ type: 'client_joined', clientId });
  }

  /** Ends an episode: waits for its in-flight calls, makes it durable in the pool, then answers. */
  async end(id: string, body: EndRequest): Promise<EndResponse> {
    const ep = this.getEpisode(id);
    this.assertOpen(ep);
    ep.status = 'ending';
    this.touchClient(ep.clientId);
    await this.episodes.whenIdle(ep);
    const result = { taskId: body.taskId, reward: body.reward, ...(body.success !== undefined ? { success: body.success } : {}), ...(body.metrics ? { metrics: body.metrics } : {}) };
    const pooled = ep.kind === 'train' && ep.calls.length > 0;
    if (pooled) {
      try {
        await this.pool.add({ episodeId: ep.id, clientId: ep.clientId, taskId: body.taskId, reward: body.reward, endedAt: this.now(), calls: ep.calls, ...(body.success !== undefined ? { success: body.success } : {}), ...(body.metrics ? { metrics: body.metrics } : {}) });
      } catch (err) {
        ep.status = 'open';
        throw err;
      }
    }
    this.episodes.finish(ep, 'ended', this.now(), { result });
    this.counters.ended += 1;
    this.clients.count(ep.clientId, 'ended');
    this.emit({ type: 'episode_ended', episodeId: ep.id, clientId: ep.clientId, kind: ep.kind, taskId: body.taskId, reward: body.reward, calls: ep.calls.length, pooled, ...(body.success !== undefined ? { success: body.success } : {}), ...(ep.codeVersion !== undefined ? { codeVersion: ep.codeVersion } : {}) });
    if (ep.kind === 'eval') this.recordEval(ep, body.reward, body.success);
    if (pooled) this.trainer.poke();
    return { episodeId: ep.id, accepted: true, pooled, calls: ep.calls.length };
  }

  abort(id: string, reason: string): { episodeId: string; aborted: true } {
    const ep = this.getEpisode(id);
    this.assertOpen(ep);
    this.abortEpisode(ep, reason);
    return { episodeId: ep.id, aborted: true };
  }

  private abortEpisode(ep: Episode, reason: string): void {
    this.episodes.finish(ep, 'aborted', this.now(), { reason });
    this.counters.aborted += 1;
    this.clients.count(ep.clientId, 'aborted');
    this.emit({ type: 'episode_aborted', episodeId: ep.id, clientId: ep.clientId, reason, calls: ep.calls.length });
  }

  private recordEval(ep: Episode, reward: number, success: boolean | undefined): void {
    const version = ep.calls.length > 0 ? oldestWeightVersion(ep.calls) : this.weightVersion;
    const acc = this.evalByVersion.get(version) ?? { episodes: 0, rewardSum: 0, successes: 0, withSuccess: 0 };
    acc.episodes += 1;
    acc.rewardSum += reward;
    if (success !== undefined) {
      acc.withSuccess += 1;
      acc.successes += success ? 1 : 0;
    }
    this.evalByVersion.set(version, acc);
    this.emit({ type: 'eval_result', result: this.evalResult(version, acc) });
  }

  private evalResult(weightVersion: number, a: EvalAccumulator): EvalResult {
    return { weightVersion, episodes: a.episodes, rewardMean: a.rewardSum / Math.max(1, a.episodes), successRate: a.withSuccess > 0 ? a.successes / a.withSuccess : null };
  }

  evalResults(): EvalResult[] {
    return [...this.evalByVersion.entries()].sort(([a], [b]) => a - b).map(([v, a]) => this.evalResult(v, a));
  }

  // ----- clients -----

  registerClient(clientId: string, name?: string): void {
    const { joined } = this.clients.seen(clientId, this.now(), name);
    if (joined) this.emit({ type: 'client_joined', clientId, ...(name ? { name } : {}) });
  }

  leaveClient(clientId: string): void {
    if (this.clients.leave(clientId)) this.clientGone(clientId, 'left');
  }

  agreeSync(clientId: string): void {
    this.touchClient(clientId);
    this.clients.agree(clientId);
    this.trainer.poke();
  }

  private clientGone(clientId: string, reason: 'left' | 'timeout'): void {
    this.emit({ type: 'client_left', clientId, reason });
    for (const ep of this.episodes.openEpisodes()) {
      if (ep.clientId === clientId && ep.status === 'open') this.abortEpisode(ep, reason === 'left' ? 'client_left' : 'client_timeout');
    }
    this.trainer.poke();
  }

  private sweep(): void {
    const now = this.now();
    for (const ep of this.episodes.expired(now)) {
      this.episodes.finish(ep, 'expired', now, { reason: 'inactivity' });
      this.counters.expired += 1;
      this.clients.count(ep.clientId, 'expired');
      this.emit({ type: 'episode_expired', episodeId: ep.id, clientId: ep.clientId, idleS: (now - ep.lastActivityAt) / 1000, calls: ep.calls.length });
    }
    for (const clientId of this.clients.sweep(now)) this.clientGone(clientId, 'timeout');
  }

  // ----- engine supervision hooks -----

  onEngineCrash(reason: string): void {
    this.log('error', 'engine', `engine process exited; in-flight calls fail with 503 and it is restarted from the last checkpoint (${reason.split('\n')[0]})`);
    this.emitState('engine exited');
  }

  onEngineRecovered(info: EngineInfo): void {
    this.counters.engineRestarts += 1;
    this.trainer.rollbackTo(info.weightVersion);
    this.log('info', 'engine', `engine restarted at step ${this.step} (weight version ${info.weightVersion})`);
    this.emitState('engine restarted');
    this.trainer.poke();
  }

  onEngineFailed(reason: string): void {
    this.log('error', 'engine', `engine could not be restarted: ${reason}`);
    this.emitState('engine failed');
  }

  // ----- status -----

  status(): Status {
    const openPerClient = (clientId: string): number => this.episodes.openEpisodes().filter((e) => e.clientId === clientId).length;
    const pool = this.pool.list();
    return {
      state: this.state, step: this.step, weightVersion: this.weightVersion, model: this.modelName, runDir: this.deps.files.dir,
      uptimeS: (this.now() - this.startedAt) / 1000, config: this.training, progress: this.trainer.progress(),
      pool: { episodes: pool.length, tasks: new Set(pool.map((e) => e.taskId)).size },
      episodes: { open: this.episodes.openCount }, counters: { ...this.counters }, clients: this.clients.list(openPerClient),
      lastStep: this.lastStep, eval: this.evalResults(),
      engine: { alive: this.engine.status === 'ready', device: this.engine.info?.device ?? 'unknown', restarts: this.engine.restarts, lastError: this.engine.lastError?.split('\n')[0] ?? null },
      lastCheckpoint: this.trainer.lastCheckpoint ? { step: this.trainer.lastCheckpoint.step, at: this.trainer.lastCheckpoint.at } : null,
      eventSeq: this.events.lastSeq,
      serving: this.scheduler.stats(),
    };
  }

  episodeSummaries(filter: Parameters<EpisodeRegistry['list']>[0]): ReturnType<typeof summarize>[] {
    return this.episodes.list(filter).map(summarize);
  }

  dispose(): void {
    clearInterval(this.sweepTimer);
    this.trainer.dispose();
    this.listeners.clear();
  }
}
