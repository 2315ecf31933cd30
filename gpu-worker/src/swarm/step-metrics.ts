// The figures of one policy update (StepMetrics): rewards and success of its episodes, samples,
// dropped episodes, staleness, the engine's loss statistics and the time it took. Pure.
import { staleness } from '../../../src/shared/batching';
import type { TrainStats } from '../../../src/shared/engine-protocol';
import { stalenessFigures, type GateHealth, type StepHealth } from '../../../src/shared/rollout-health';
import type { StepMetrics } from '../../../src/shared/swarm-protocol';
import type { BuiltSamples } from '../trainer/train-samples';
import { oldestWeightVersion, type PoolEntry } from './pool';

export interface StepFacts {
  step: number;
  /** The weight version after the update. */
  weightVersion: number;
  entries: readonly PoolEntry[];
  built: BuiltSamples;
  /** null: nothing was trained (no sample carried a gradient). */
  stats: TrainStats | null;
  droppedStale: number;
  /** The staleness bound the update held its episodes to, and what it dropped for exceeding it. */
  bound?: { stalenessBound: number; droppedOverBound: number; overBoundTokens: number } | undefined;
  seconds: number;
  /** The generation gate's busy fractions and sync time over the step (run health); absent: no health figures. */
  gate?: GateHealth | undefined;
}

/** Run health of a step: token staleness of what it trained, mismatch and correction, the gate's figures. */
export function stepHealth(f: StepFacts, before: number, gate: GateHealth): StepHealth {
  return {
    ...stalenessFigures(
      f.entries.flatMap((e) => e.calls),
      before,
    ),
    mismatchKl: f.stats?.mismatchKl ?? null,
    correctedFraction: f.stats?.correctedFraction ?? null,
    correction: f.stats?.correction ?? 'none',
    ...(f.bound ?? {}),
    ...gate,
  };
}

export function stepMetrics(f: StepFacts): StepMetrics {
  const { entries, stats } = f;
  const withSuccess = entries.filter((e) => e.success !== undefined);
  const rewards = entries.map((e) => e.reward);
  // Staleness is measured against the weights the update started from.
  const before = stats ? f.weightVersion - 1 : f.weightVersion;
  return {
    step: f.step,
    weightVersion: f.weightVersion,
    episodes: entries.length,
    tasks: new Set(entries.map((e) => e.taskId)).size,
    rewardMean: rewards.reduce((a, r) => a + r, 0) / Math.max(1, entries.length),
    rewardMin: rewards.length > 0 ? Math.min(...rewards) : 0,
    rewardMax: rewards.length > 0 ? Math.max(...rewards) : 0,
    successRate: withSuccess.length > 0 ? withSuccess.filter((e) => e.success).length / withSuccess.length : null,
    samples: f.built.samples.length,
    droppedZeroAdvantage: f.built.droppedEpisodes,
    droppedStale: f.droppedStale,
    maxStaleness: entries.reduce((m, e) => Math.max(m, staleness(oldestWeightVersion(e.calls), before)), 0),
    loss: stats?.loss ?? null,
    pgLoss: stats?.pgLoss ?? null,
    klLoss: stats?.klLoss ?? null,
    clipFraction: stats?.clipFraction ?? null,
    approxKl: stats?.approxKl ?? null,
    entropy: stats?.entropy ?? null,
    gradNorm: stats?.gradNorm ?? null,
    trainedTokens: stats?.trainedTokens ?? 0,
    seconds: f.seconds,
    ...(f.gate ? { health: stepHealth(f, before, f.gate) } : {}),
  };
}
