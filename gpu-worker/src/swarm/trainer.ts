// The training loop of the swarm server: after every change to the pool (or a sync agreement)
// it asks the batching strategy whether to update; an update merges the selected episodes'
// timelines, computes advantages per task, runs the engine's PPO-clip `train_step` and bumps the
// weight version; every `checkpointEvery` steps (and on request / SIGTERM) it checkpoints.
//
// Episodes in flight during an update: generation pauses for the update (running generations
// finish first; new calls wait, they are not refused), and the episode continues afterwards on
// the new weights. Each call is recorded with the weight version that sampled it and its raw
// rollout logprobs, so the update that trains the episode corrects older calls by importance
// sampling (PPO's ratio against the rollout logprobs, clipped). An episode whose oldest call is
// more than `maxStaleness` versions behind the current weights is dropped instead of trained.
// Claims during an update get a 503 with a retry hint.
import { rmSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { decideBatch, staleness, type BatchDecision } from '../../../src/shared/batching';
import type { TrainStats } from '../../../src/shared/engine-protocol';
import { RemoteError } from '../../../src/shared/result';
import type { BatchProgress, StepMetrics } from '../../../src/shared/swarm-protocol';
import { buildTrainSamples, type BuiltSamples } from '../trainer/train-samples';
import { SwarmError } from './errors';
import { oldestWeightVersion, type PoolEntry, type RemoveReason } from './pool';
import { writeState, type SavedState } from './run-dir';
import type { Swarm } from './swarm';

export interface CheckpointInfo {
  step: number;
  weightVersion: number;
  path: string;
  at: number;
}

const KEEP_CHECKPOINTS = 2;

export class Trainer {
  lastCheckpoint: CheckpointInfo | null = null;
  private busy = false;
  private pokeScheduled = false;
  private disposed = false;
  private lastProgressKey = '';
  private lastUpdateMs = 5000;
  private lockChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly swarm: Swarm,
    saved: SavedState | null,
  ) {
    if (saved?.checkpoint) {
      this.lastCheckpoint = { step: saved.step, weightVersion: saved.weightVersion, path: join(swarm.deps.files.dir, saved.checkpoint), at: saved.savedAt };
    }
  }

  private decide(): BatchDecision {
    const s = this.swarm;
    const items = s.pool.list().map((e) => ({ episodeId: e.episodeId, taskId: e.taskId, reward: e.reward }));
    return decideBatch(items, s.training, { activeClients: s.clients.activeIds(), agreed: s.clients.agreedIds() });
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
    const s = this.swarm;
    if (this.busy || this.disposed) return;
    const decision = this.decide();
    const key = JSON.stringify([decision.progress, s.pool.size]);
    if (key !== this.lastProgressKey) {
      this.lastProgressKey = key;
      s.emit({ type: 'batch_progress', progress: decision.progress, poolEpisodes: s.pool.size });
    }
    if (decision.drop.length === 0 && (!decision.progress.ready || s.state !== 'running')) return;
    // Decide again under the lock: the pool may have changed while waiting for it.
    const acted = await this.withLock(async () => {
      const d = this.decide();
      if (d.drop.length > 0) {
        await this.drop(d.drop, 'zero_variance');
        return true;
      }
      if (!d.progress.ready || s.state !== 'running') return false;
      await this.update(d.selected);
      return true;
    });
    if (acted) this.poke();
  }

  private async drop(ids: readonly string[], reason: RemoveReason & ('zero_variance' | 'stale' | 'train_error')): Promise<void> {
    const removed = await this.swarm.pool.remove(ids, reason, this.swarm.step + 1);
    if (removed.length === 0) return;
    this.swarm.counters.droppedEpisodes += removed.length;
    this.swarm.emit({ type: 'episodes_dropped', episodeIds: removed.map((e) => e.episodeId), reason });
  }

  private async update(selected: readonly string[]): Promise<void> {
    const s = this.swarm;
    const t0 = performance.now();
    s.updating = true;
    s.emitState('update');
    try {
      await s.scheduler.pause();
      const serving = await s.scheduler.stepFigures().catch(() => undefined);
      const entries = selected.map((id) => s.pool.get(id)).filter((e): e is PoolEntry => e !== undefined);
      const max = s.training.maxStaleness;
      const stale = entries.filter((e) => staleness(oldestWeightVersion(e.calls), s.weightVersion) > max);
      const fresh = entries.filter((e) => !stale.includes(e));
      if (stale.length > 0) await this.drop(stale.map((e) => e.episodeId), 'stale');
      if (fresh.length === 0) return;
      const built = this.build(fresh);
      let stats: TrainStats | null = null;
      if (built.samples.length > 0) {
        const t = s.training;
        stats = await s.engine.call('train_step', {
          samples: built.samples,
          hyper: { lr: t.lr, clipLow: t.clipLow, clipHigh: t.clipHigh, klCoef: t.klCoef, maxGradNorm: t.maxGradNorm, microBatchTokens: t.microBatchTokens },
        });
      }
      const step = s.step + 1;
      await s.pool.remove(fresh.map((e) => e.episodeId), stats ? 'trained' : 'no_signal', step);
      if (stats) {
        s.step = step;
        s.weightVersion = stats.weightVersion;
        s.counters.trainedEpisodes += fresh.length;
      } else {
        s.counters.droppedEpisodes += fresh.length;
      }
      const metrics = { ...this.metrics(fresh, built, stats, stale.length, (performance.now() - t0) / 1000), ...(serving ? { serving } : {}) };
      s.lastStep = metrics;
      s.emit({ type: 'step', metrics });
      const m = built.merge;
      s.emit({
        type: 'merge_stats', step: s.step, episodes: m.episodes, callsIn: m.callsIn, samplesOut: m.samplesOut, tokensBefore: m.tokensBefore,
        tokensAfter: m.tokensAfter, tokensTrained: m.tokensTrained, compressionRatio: m.compressionRatio, breakCounts: m.breakCounts,
      });
      if (stats && s.training.checkpointEvery > 0 && s.step % s.training.checkpointEvery === 0) await this.checkpointLocked('periodic');
    } catch (err) {
      if (err instanceof SwarmError && err.status === 503) {
        s.log('warn', 'trainer', `update interrupted, its episodes stay pooled: ${err.message}`);
      } else {
        const message = err instanceof Error ? err.message : String(err);
        s.log('error', 'trainer', `update failed; its episodes are dropped: ${message}`);
        if (err instanceof RemoteError || err instanceof Error) await this.drop(selected, 'train_error').catch(() => undefined);
      }
    } finally {
      this.lastUpdateMs = performance.now() - t0;
      s.clients.clearAgreements();
      s.updating = false;
      s.scheduler.resume();
      s.emitState('update finished');
    }
  }

  private build(entries: readonly PoolEntry[]): BuiltSamples {
    const t = this.swarm.training;
    return buildTrainSamples(
      entries.map((e) => ({ episodeId: e.episodeId, groupKey: e.taskId, reward: e.reward, timelines: e.calls })),
      { estimator: t.algo, merge: t.merge, level: t.level, dropZeroAdvantage: true },
    );
  }

  private metrics(entries: readonly PoolEntry[], built: BuiltSamples, stats: TrainStats | null, droppedStale: number, seconds: number): StepMetrics {
    const withSuccess = entries.filter((e) => e.success !== undefined);
    const current = this.swarm.weightVersion;
    return {
      step: this.swarm.step, weightVersion: current, episodes: entries.length, tasks: new Set(entries.map((e) => e.taskId)).size,
      rewardMean: entries.reduce((a, e) => a + e.reward, 0) / Math.max(1, entries.length),
      rewardMin: entries.length > 0 ? Math.min(...entries.map((e) => e.reward)) : 0,
      rewardMax: entries.length > 0 ? Math.max(...entries.map((e) => e.reward)) : 0,
      successRate: withSuccess.length > 0 ? withSuccess.filter((e) => e.success).length / withSuccess.length : null,
      samples: built.samples.length, droppedZeroAdvantage: built.droppedEpisodes, droppedStale,
      maxStaleness: entries.reduce((m, e) => Math.max(m, staleness(oldestWeightVersion(e.calls), stats ? current - 1 : current)), 0),
      loss: stats?.loss ?? null, pgLoss: stats?.pgLoss ?? null, klLoss: stats?.klLoss ?? null, clipFraction: stats?.clipFraction ?? null,
      approxKl: stats?.approxKl ?? null, entropy: stats?.entropy ?? null, gradNorm: stats?.gradNorm ?? null,
      trainedTokens: stats?.trainedTokens ?? 0, seconds,
    };
  }

  /** Writes a checkpoint (waits for a running update). */
  checkpoint(reason: string): Promise<CheckpointInfo> {
    return this.withLock(() => this.checkpointLocked(reason)).finally(() => this.poke());
  }

  private async checkpointLocked(reason: string): Promise<CheckpointInfo> {
    const s = this.swarm;
    const t0 = performance.now();
    const files = s.deps.files;
    const path = join(files.checkpoints, `step-${String(s.step).padStart(6, '0')}`);
    const same = this.lastCheckpoint && this.lastCheckpoint.step === s.step && this.lastCheckpoint.weightVersion === s.weightVersion && this.lastCheckpoint.path === path;
    if (!same) await s.engine.call('save', { path });
    const info: CheckpointInfo = { step: s.step, weightVersion: s.weightVersion, path, at: s.now() };
    writeState(files, {
      version: 1, step: s.step, weightVersion: s.weightVersion, checkpoint: relative(files.dir, path), counters: s.counters,
      eval: s.evalResults(), lastStep: s.lastStep, savedAt: info.at,
    });
    this.lastCheckpoint = info;
    await s.pool.compact();
    this.prune(path);
    s.emit({ type: 'checkpoint', step: s.step, path, reason, seconds: (performance.now() - t0) / 1000 });
    return info;
  }

  private prune(keep: string): void {
    const dir = this.swarm.deps.files.checkpoints;
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => /^step-\d+$/.test(n)).sort();
    } catch {
      return;
    }
    const old = names.filter((n) => join(dir, n) !== keep).slice(0, Math.max(0, names.length - KEEP_CHECKPOINTS));
    for (const n of old) rmSync(join(dir, n), { recursive: true, force: true });
  }

  /** After an engine restart from the last checkpoint: step and pool go back to it. */
  rollbackTo(weightVersion: number): void {
    const s = this.swarm;
    const step = this.lastCheckpoint?.step ?? 0;
    const back = s.pool.rollback(step);
    if (back.length > 0) s.log('info', 'trainer', `${back.length} episode(s) trained after the checkpoint are back in the pool`);
    s.step = step;
    s.weightVersion = weightVersion;
  }

  private withLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lockChain.then(async () => {
      this.busy = true;
      try {
        return await fn();
      } finally {
        this.busy = false;
      }
    });
    this.lockChain = run.then(() => undefined, () => undefined);
    return run;
  }

  dispose(): void {
    this.disposed = true;
  }
}
