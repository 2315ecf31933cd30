// The swarm service: the worker's state machine and everything clients do besides inference —
// claiming episodes (signed keys), ending and aborting them, client liveness and sync
// agreements, inactivity expiry, counters, evaluation results and the event stream. Its state
// changes only through the methods below, each named for what happens; the state and its reads
// (the status snapshot, episodes, merged samples) are swarm-reads.ts's. The step and the last
// step's metrics are the Trainer's, the weight version is the engine's.
import type { EngineInfo } from '../../../src/shared/engine-protocol';
import type { TrainingConfig, TrainingConfigPatch } from '../../../src/shared/options/index';
import type { SwarmEvent } from '../../../src/shared/swarm-events';
import type {
  ClaimRequest,
  ClaimResponse,
  Counters,
  EndRequest,
  EndResponse,
  EvalResult,
} from '../../../src/shared/swarm-protocol';
import type { RecordedCall } from '../rollout/record-call';
import type { WorkerConfig } from '../worker-config';
import type { CallLedger } from './completions';
import { clientClosed } from '../errors';
import { Waiters } from '../../../src/shared/waiters';
import { assertOpen, CLAIM_HOLD_MS, claimRefusal, MAX_HELD_CLAIMS, validEnd } from './episode-rules';
import type { LogLevel } from './event-bus';
import { EpisodeRegistry, type Episode } from './episodes';
import { EvalResults } from './eval-results';
import { newEpisodeId, signEpisodeKey } from './keys';
import { oldestWeightVersion, type DurablePool } from './pool';
import type { RunFiles } from './run-dir';
import { SwarmReads, type SwarmDeps } from './swarm-reads';
import { TrainedSamples } from './trained-samples';
import { Trainer } from './trainer';
import type { TrainerHost } from './trainer-ports';

export type { SwarmDeps };

export class Swarm extends SwarmReads implements CallLedger, TrainerHost {
  readonly trainer: Trainer;
  private readonly sweepTimer: NodeJS.Timeout;
  /** Claims held during an update (episode-rules.ts), woken on every state change. */
  private readonly heldClaims = new Waiters(MAX_HELD_CLAIMS);

  constructor(deps: SwarmDeps) {
    super(deps);
    this.trainer = new Trainer({
      config: () => this.trainingConfig,
      async: deps.config.async,
      pool: deps.pool,
      engine: deps.engine,
      generation: deps.generation,
      sync: this.clients,
      host: this,
      events: this.bus,
      files: deps.files,
      saved: deps.saved,
      now: this.now,
      teacher: deps.teacher ?? null,
      onStep: (step) => this.trained.record(step),
    });
    this.sweepTimer = setInterval(() => this.sweep(), deps.sweepIntervalMs ?? 1000);
    this.sweepTimer.unref();
  }

  // ----- events and logs -----
  onEvent = (listener: (e: SwarmEvent) => void): (() => void) => this.bus.onEvent(listener);

  log = (level: LogLevel, source: string, message: string): void => this.bus.log(level, source, message);

  /** Announces the current state (with why it changed). */
  emitState(reason?: string): void {
    this.heldClaims.wake();
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
    else this.heldClaims.wake(); // held claims are answered (503 stopping) now, not when the update ends
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
  /**
   * A claim as the native route takes it: during a synchronous update it is held until the update
   * ends (episode-rules.ts), then claimed on the new weights; refused as `claim` refuses when the hold
   * runs out (`holdMs`) or the state is anything else. A client gone while held claims nothing.
   */
  async claimHeld(
    req: ClaimRequest & { kind: 'train' | 'eval' },
    baseUrl: string,
    o: { signal?: AbortSignal; holdMs?: number } = {},
  ): Promise<ClaimResponse> {
    const deadline = performance.now() + (o.holdMs ?? CLAIM_HOLD_MS);
    while (this.state === 'updating') {
      if ((await this.heldClaims.wait(deadline - performance.now(), o.signal)) !== 'woken') break;
    }
    if (o.signal?.aborted) throw clientClosed();
    return this.claim(req, baseUrl);
  }

  /** Claims an episode now, or the 503 (with a retry hint) of a state other than `running`. */
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
      ...(req.role !== undefined ? { role: req.role } : {}),
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
          ...(ep.codeVersion !== undefined ? { codeVersion: ep.codeVersion } : {}),
          ...(ep.role !== undefined ? { role: ep.role } : {}),
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

  // ----- quarantine by code version (pool.ts) -----
  /** Holds the pooled, untrained episodes of `codeVersion` out of training; between updates, never during one. */
  async quarantine(codeVersion: string): Promise<string[]> {
    const held = await this.trainer.withLock(() => this.deps.pool.quarantine(codeVersion));
    this.log('info', 'pool', `quarantine of code version ${codeVersion} removed ${held.length} pooled episode(s)`);
    this.trainer.poke();
    return held.map((e) => e.episodeId);
  }

  /** Undoes a quarantine: the version's held episodes rejoin the pool. */
  async release(codeVersion: string): Promise<string[]> {
    const back = await this.trainer.withLock(() => this.deps.pool.release(codeVersion));
    this.log('info', 'pool', `release of code version ${codeVersion} returned ${back.length} episode(s) to the pool`);
    this.trainer.poke();
    return back.map((e) => e.episodeId);
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
      'engine process exited; in-flight calls fail with 503 and it is restarted from the last checkpoint ' +
        `(${reason.split('\n')[0]})`,
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
