// Pure figures of the `async` bench: one arm's summary from its step metrics and counters, the
// difference of two success rates in standard errors, and the GPU projection from measured step times.
import type { StepMetrics } from '../src/shared/swarm-protocol';
import { binomialSe } from './train-stats';

export interface ArmSummary {
  arm: string;
  minutes: number;
  trainedEpisodes: number;
  episodesPerMin: number;
  updatesPerMin: number;
  /** Means over the arm's steps (null: no step had the figure). */
  stalenessMean: number | null;
  stalenessMax: number;
  mismatchKl: number | null;
  correctedFraction: number | null;
  syncMs: number | null;
  genBusy: number | null;
  trainerBusy: number | null;
  genIdle: number | null;
  droppedStale: number;
  /** Mean seconds of an update (the trainer's part of a step). */
  updateSeconds: number | null;
}

const mean = (xs: number[]): number | null => (xs.length > 0 ? xs.reduce((a, x) => a + x, 0) / xs.length : null);
const figures = (steps: readonly StepMetrics[], pick: (s: StepMetrics) => number | null | undefined): number[] =>
  steps.map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));

/** One arm's figures; the first step is left out of the busy fractions (its window starts at worker start). */
export function summarizeArm(
  arm: string,
  steps: readonly StepMetrics[],
  trainedEpisodes: number,
  minutes: number,
): ArmSummary {
  const later = steps.slice(1);
  return {
    arm,
    minutes,
    trainedEpisodes,
    episodesPerMin: trainedEpisodes / minutes,
    // A step whose batch trained nothing (every group's advantage zero) changed no weight: not an update.
    updatesPerMin: steps.filter((s) => s.samples > 0).length / minutes,
    stalenessMean: mean(figures(steps, (s) => s.health?.stalenessMean)),
    stalenessMax: steps.reduce((m, s) => Math.max(m, s.health?.stalenessMax ?? s.maxStaleness), 0),
    mismatchKl: mean(figures(steps, (s) => s.health?.mismatchKl ?? s.approxKl)),
    correctedFraction: mean(figures(steps, (s) => s.health?.correctedFraction)),
    syncMs: mean(figures(steps, (s) => s.health?.syncMs)),
    genBusy: mean(figures(later, (s) => s.health?.genBusyFraction)),
    trainerBusy: mean(figures(later, (s) => s.health?.trainerBusyFraction)),
    genIdle: mean(figures(later, (s) => s.health?.genIdleWaitFraction)),
    droppedStale: steps.reduce((a, s) => a + s.droppedStale, 0),
    updateSeconds: mean(figures(steps, (s) => s.seconds)),
  };
}

/** (b − a) in standard errors of the difference of two independent binomial rates. */
export function diffInSe(a: { rate: number; n: number }, b: { rate: number; n: number }): number {
  const se = Math.hypot(binomialSe(a.rate, a.n), binomialSe(b.rate, b.n));
  return se > 0 ? (b.rate - a.rate) / se : 0;
}

export interface Projection {
  /** Per step on the GPU box, seconds: generation on `rollout` GPUs, update on `train` GPUs, sync. */
  genS: number;
  trainS: number;
  syncS: number;
  syncStepS: number;
  asyncStepS: number;
  gain: number;
  /** Today's engine on that box: FSDP over all GPUs for the update, generation on rank 0 alone. */
  todayStepS: number;
  gainVsToday: number;
}

/**
 * Steps/s gain of async over sync on a box of `gpus` GPUs split `train` / `rollout`, from a measured
 * colocated step (generation `genS`, update `trainS` on all devices): generation scales with the
 * rollout GPUs, the update with the train GPUs (data parallel, ideal), the sync costs `syncS`.
 * Sync: one device set alternates (gen on all GPUs, then the update on all GPUs). Async: the two
 * overlap, the step is the longer of them plus the part of the sync that blocks generation.
 */
export function projectGain(
  measured: { genS: number; trainS: number; syncS: number },
  gpus: number,
  train: number,
): Projection {
  const rollout = gpus - train;
  const syncStepS = measured.genS / gpus + measured.trainS / gpus;
  const genS = measured.genS / rollout;
  const trainS = measured.trainS / train;
  const asyncStepS = Math.max(genS, trainS + measured.syncS);
  const todayStepS = measured.genS + measured.trainS / gpus;
  return {
    genS,
    trainS,
    syncS: measured.syncS,
    syncStepS,
    asyncStepS,
    gain: syncStepS / asyncStepS,
    todayStepS,
    gainVsToday: todayStepS / asyncStepS,
  };
}
