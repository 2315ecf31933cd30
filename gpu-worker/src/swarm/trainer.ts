// The training loop of the swarm server: after every change to the pool (or a sync agreement)
// it asks the batching strategy whether to update; an update merges the selected episodes'
// timelines, computes advantages per task and runs the engine's PPO-clip `train_step` (the one
// training-step path, trainer/train-step.ts), and commits the step; every `checkpointEvery` steps
// (and on request / SIGTERM) it checkpoints. It owns the step counter, the last step's metrics and
// whether an update is running; the weight version is the engine's.
//
// Episodes in flight during an update: generation pauses for the update (running generations
// finish first; new calls wait, they are not refused), and the episode continues afterwards on
// the new weights. Each call is recorded with the weight version that sampled it and its raw
// rollout logprobs, so the update that trains the episode corrects older calls by importance
// sampling (PPO's ratio against the rollout logprobs, clipped). An episode whose oldest call is
// more than `maxStaleness` versions behind the current weights — with --async, more than the staleness
// bound K when that is smaller — is dropped instead of trained, whatever the strategy (C1–C5) selected
// it: every update passes through `inBound` below, and the step's `health` counts what it dropped.
// Claims during an update wait for it to end (Swarm.claimHeld, episode-rules.ts).
import { decideBatch, staleness, trainingBound, type BatchDecision } from '../../../src/shared/batching';
import type { TrainStats } from '../../../src/shared/engine-protocol';
import { RemoteError } from '../../../src/shared/result';
import type { StepMerge } from '../../../src/shared/swarm-events';
import type { BatchProgress, StepMetrics, StepServing } from '../../../src/shared/swarm-protocol';
import type { BuiltSamples } from '../trainer/train-samples';
import { trainOnEpisodes, type TrainSettings } from '../trainer/train-step';
import { Checkpoints, type CheckpointInfo } from './checkpoints';
import { SwarmError } from '../errors';
import { oldestWeightVersion, type PoolEntry, type RemoveReason } from './pool';
import { ScoreAhead, scoredEpisode } from './score-ahead';
import type { RunFiles } from './run-dir';
import { stepMetrics, type StepFacts } from './step-metrics';
import type { TrainerDeps, TrainingPool } from './trainer-ports';

export type { CheckpointInfo } from './checkpoints';

const mergeOf = (m: BuiltSamples['merge']): StepMerge => ({
  episodes: m.episodes,
  callsIn: m.callsIn,
  samplesOut: m.samplesOut,
  tokensBefore: m.tokensBefore,
  tokensAfter: m.tokensAfter,
  tokensTrained: m.tokensTrained,
  compressionRatio: m.compressionRatio,
  breakCounts: m.breakCounts,
});

export class Trainer {
  private stepCount: number;
  private last: StepMetrics | null;
  private running = false;
  private busy = false;
  private pokeScheduled = false;
  private disposed = false;
  private lastProgressKey = '';
  private lastUpdateMs = 5000;
  private lockChain: Promise<void> = Promise.resolve();
  private checkpoints: Checkpoints;
  private readonly scoreAhead = new ScoreAhead((m) => this.deps.events.log('warn', 'trainer', m));

  constructor(private readonly deps: TrainerDeps) {
    this.stepCount = deps.saved?.step ?? 0;
    this.last = deps.saved?.lastStep ?? null;
    this.checkpoints = new Checkpoints(
      { engine: deps.engine, pool: deps.pool, files: deps.files, now: deps.now },
      deps.saved,
    );
  }

  /** Steps trained so far (an update that trained nothing keeps it). */
  get step(): number {
    return this.stepCount;
  }

  get lastStep(): StepMetrics | null {
    return this.last;
  }

  /** Whether an update is running (claims wait meanwhile). */
  get updating(): boolean {
    return this.running;
  }

  get lastCheckpoint(): CheckpointInfo | null {
    return this.checkpoints.last;
  }

  private decide(): BatchDecision {
    const items = this.deps.pool.list().map((e) => ({ episodeId: e.episodeId, taskId: e.taskId, reward: e.reward }));
    return decideBatch(items, this.deps.config(), {
      activeClients: this.deps.sync.activeIds(),
      agreed: this.deps.sync.agreedIds(),
    });
  }

  progress(): BatchProgress {
    return this.decide().progress;
  }

  expectedUpdateS(): number {
    return Math.max(1, this.lastUpdateMs / 1000);
  }

  /** Re-evaluates the strategy soon (coalesced). */
  poke(): void {
    if (this.pokeScheduled || this.disposed) return;
    this.pokeScheduled = true;
    setImmediate(() => {
      this.pokeScheduled = false;
      void this.maybeUpdate();
    });
  }

  private async maybeUpdate(): Promise<void> {
    if (this.disposed) return;
    if (this.deps.teacher?.prefetch) this.scoreAhead.run(this.deps.pool.list(), this.deps.config(), this.deps.teacher);
    if (this.busy) return;
    const decision = this.decide();
    const key = JSON.stringify([decision.progress, this.deps.pool.size]);
    if (key !== this.lastProgressKey) {
      this.lastProgressKey = key;
      this.deps.events.emit({ type: 'batch_progress', progress: decision.progress, poolEpisodes: this.deps.pool.size });
    }
    if (decision.drop.length === 0 && (!decision.progress.ready || !this.deps.host.canUpdate())) return;
    // Decide again under the lock: the pool may have changed while waiting for it.
    const acted = await this.withLock(async () => {
      const d = this.decide();
      if (d.drop.length > 0) {
        await this.drop(d.drop, 'zero_variance');
        return true;
      }
      if (!d.progress.ready || !this.deps.host.canUpdate()) return false;
      await this.update(d.selected);
      return true;
    });
    if (acted) this.poke();
  }

  private async drop(
    ids: readonly string[],
    reason: RemoveReason & ('zero_variance' | 'stale' | 'train_error'),
  ): Promise<void> {
    const removed = await this.deps.pool.remove(ids, reason, this.stepCount + 1);
    if (removed.length === 0) return;
    this.deps.host.count('droppedEpisodes', removed.length);
    this.deps.events.emit({ type: 'episodes_dropped', episodeIds: removed.map((e) => e.episodeId), reason });
  }

  /**
   * The selected episodes split by the training-time staleness bound: an episode trains only if its oldest
   * generated token lags the weights this update starts from by at most the bound (batching.ts trainingBound).
   */
  private inBound(entries: readonly PoolEntry[]): {
    fresh: PoolEntry[];
    stale: PoolEntry[];
    bound: NonNullable<StepFacts['bound']>;
  } {
    const cfg = this.deps.config();
    const limit = trainingBound({ async: this.deps.async ?? false, ...cfg });
    const version = this.deps.engine.weightVersion;
    const over = (e: PoolEntry): boolean => staleness(oldestWeightVersion(e.calls), version) > limit;
    const stale = entries.filter(over);
    const tokens = stale.reduce((n, e) => n + e.calls.reduce((m, c) => m + c.outputIds.length, 0), 0);
    return {
      fresh: entries.filter((e) => !over(e)),
      stale,
      bound: { stalenessBound: limit, droppedOverBound: stale.length, overBoundTokens: tokens },
    };
  }

  private beginUpdate(): void {
    this.running = true;
    this.deps.host.stateChanged('update');
  }

  private endUpdate(t0: number): void {
    this.lastUpdateMs = performance.now() - t0;
    this.deps.sync.clearAgreements();
    this.running = false;
    this.deps.generation.resume();
    this.deps.host.stateChanged('update finished');
  }

  private async update(selected: readonly string[]): Promise<void> {
    const t0 = performance.now();
    this.beginUpdate();
    try {
      await this.deps.generation.pause();
      // The engine's batching and prefix-cache figures over the rollouts since the last update.
      const serving = await this.deps.generation.stepFigures?.().catch(() => undefined);
      const entries = selected.map((id) => this.deps.pool.get(id)).filter((e): e is PoolEntry => e !== undefined);
      const { fresh, stale, bound } = this.inBound(entries);
      if (stale.length > 0)
        await this.drop(
          stale.map((e) => e.episodeId),
          'stale',
        );
      if (fresh.length === 0) return;
      const settings = { ...this.deps.config() };
      const { built, stats, distillReverseKl, distillTopKl, distillKept } = await trainOnEpisodes(
        this.deps.engine,
        fresh.map(scoredEpisode),
        settings,
        this.deps.teacher,
      );
      const ahead = this.deps.teacher?.takeFigures?.();
      await this.commitStep({
        fresh,
        built,
        stats,
        settings,
        droppedStale: stale.length,
        bound,
        seconds: (performance.now() - t0) / 1000,
        serving,
        distillReverseKl,
        distillTopKl,
        distillKept,
        distillPrefetched: ahead && ahead.sequences > 0 ? ahead.prefetched / ahead.sequences : undefined,
      });
      const every = this.deps.config().checkpointEvery;
      // The step is committed: a failed periodic checkpoint is reported as such (the next one retries), never as a
      // failed update.
      if (stats && every > 0 && this.stepCount % every === 0) {
        await this.checkpointLocked('periodic').catch((err: unknown) => {
          this.deps.events.log(
            'error',
            'trainer',
            `periodic checkpoint after step ${this.stepCount} failed (the step stands; the next checkpoint ` +
              `retries): ${err instanceof Error ? err.message : String(err)}`,
          );
        });
      }
    } catch (err) {
      await this.failed(err, selected);
    } finally {
      this.endUpdate(t0);
    }
  }

  /** The update is done: its episodes leave the pool, the step counts (if it trained) and is reported. */
  private async commitStep(u: {
    fresh: readonly PoolEntry[];
    built: BuiltSamples;
    stats: TrainStats | null;
    settings: TrainSettings;
    droppedStale: number;
    bound: StepFacts['bound'];
    seconds: number;
    serving?: StepServing | undefined;
    distillReverseKl?: number | undefined;
    distillTopKl?: number | undefined;
    distillKept?: number | undefined;
    distillPrefetched?: number | undefined;
  }): Promise<void> {
    const { fresh, built, stats } = u;
    const step = this.stepCount + 1;
    await this.deps.pool.remove(
      fresh.map((e) => e.episodeId),
      stats ? 'trained' : 'no_signal',
      step,
    );
    if (stats) {
      this.stepCount = step;
      this.deps.host.count('trainedEpisodes', fresh.length);
    } else {
      this.deps.host.count('droppedEpisodes', fresh.length);
    }
    const metrics: StepMetrics = {
      ...stepMetrics({
        step: this.stepCount,
        weightVersion: this.deps.engine.weightVersion,
        entries: fresh,
        built,
        stats,
        droppedStale: u.droppedStale,
        bound: u.bound,
        seconds: u.seconds,
        gate: this.deps.generation.healthFigures?.(),
      }),
      ...(u.serving ? { serving: u.serving } : {}),
      ...(u.distillReverseKl !== undefined ? { distillReverseKl: u.distillReverseKl } : {}),
      ...(u.distillTopKl !== undefined ? { distillTopKl: u.distillTopKl } : {}),
      ...(u.distillKept !== undefined ? { distillKept: u.distillKept } : {}),
      ...(u.distillPrefetched !== undefined ? { distillPrefetched: u.distillPrefetched } : {}),
    };
    this.last = metrics;
    this.deps.onStep?.({
      step: this.stepCount,
      weightVersion: metrics.weightVersion,
      episodes: fresh,
      built,
      trained: stats !== null,
      settings: u.settings,
    });
    this.deps.events.emit({
      type: 'step',
      metrics,
      merge: mergeOf(built.merge),
      episodeIds: fresh.map((e) => e.episodeId),
    });
  }

  private async failed(err: unknown, selected: readonly string[]): Promise<void> {
    if (err instanceof SwarmError && err.status === 503) {
      this.deps.events.log('warn', 'trainer', `update interrupted, its episodes stay pooled: ${err.message}`);
      return;
    }
    this.deps.events.log(
      'error',
      'trainer',
      `update failed; its episodes are dropped: ${err instanceof Error ? err.message : String(err)}`,
    );
    if (err instanceof RemoteError || err instanceof Error)
      await this.drop(selected, 'train_error').catch(() => undefined);
  }

  /** Writes a checkpoint (waits for a running update). */
  checkpoint(reason: string): Promise<CheckpointInfo> {
    return this.withLock(() => this.checkpointLocked(reason)).finally(() => this.poke());
  }

  private async checkpointLocked(reason: string): Promise<CheckpointInfo> {
    const t0 = performance.now();
    const info = await this.checkpoints.write({
      step: this.stepCount,
      lastStep: this.last,
      ...this.deps.host.snapshot(),
    });
    this.deps.events.emit({
      type: 'checkpoint',
      step: info.step,
      path: info.path,
      reason,
      seconds: (performance.now() - t0) / 1000,
    });
    return info;
  }

  /** After an engine restart from the last checkpoint: the step and the pool go back to it. */
  rollbackToCheckpoint(): void {
    const step = this.checkpoints.last?.step ?? 0;
    const back = this.deps.pool.rollback(step);
    if (back.length > 0)
      this.deps.events.log(
        'info',
        'trainer',
        `${back.length} episode(s) trained after the checkpoint are back in the pool`,
      );
    this.stepCount = step;
  }

  /**
   * A reset (run-reset.ts): under the training lock, checkpoints the current run, then lets
   * `replace` install a fresh one (returning its pool and files); the new run starts at step 0
   * with no checkpoint. Returns the old run's checkpoint.
   */
  resetRun(replace: () => Promise<{ pool: TrainingPool; files: RunFiles }>): Promise<CheckpointInfo> {
    return this.withLock(async () => {
      const old = await this.checkpointLocked('reset');
      const next = await replace();
      Object.assign(this.deps, { pool: next.pool, files: next.files, saved: null });
      this.checkpoints = new Checkpoints(
        { engine: this.deps.engine, pool: next.pool, files: next.files, now: this.deps.now },
        null,
      );
      this.stepCount = 0;
      this.last = null;
      this.lastProgressKey = '';
      return old;
    }).finally(() => this.poke());
  }

  withLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lockChain.then(async () => {
      this.busy = true;
      try {
        return await fn();
      } finally {
        this.busy = false;
      }
    });
    this.lockChain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  dispose(): void {
    this.disposed = true;
  }
}
