// Which scalars a run's metrics become in TensorBoard, with one set of tag names for both writers:
// the worker's `--tensorboard` (from its step, merge-statistics and eval events) and the
// workbench's export (from the stored step and eval points). Steps are training steps; evals are
// plotted at their weight version. Cache statistics, when a step carries them (`cache`: numbers),
// become `cache/*`. Pure.
import type { EvalResult, StepMetrics } from '../swarm-protocol';
import type { EvalPoint, StepPoint } from '../workbench-api';
import type { Scalar } from './event-file';

const sc = (tag: string, value: number | null | undefined): Scalar[] =>
  value === null || value === undefined ? [] : [{ tag, value }];

/** Numeric fields of a step's `cache` object, if it has one. */
export function cacheScalars(step: object): Scalar[] {
  const cache: unknown = Object.getOwnPropertyDescriptor(step, 'cache')?.value;
  if (typeof cache !== 'object' || cache === null) return [];
  return Object.entries(cache).flatMap(([k, v]) => (typeof v === 'number' ? [{ tag: `cache/${k}`, value: v }] : []));
}

export function stepScalars(m: StepMetrics): Scalar[] {
  return [
    ...sc('reward/mean', m.rewardMean),
    ...sc('reward/min', m.rewardMin),
    ...sc('reward/max', m.rewardMax),
    ...sc('success_rate', m.successRate),
    ...sc('episodes', m.episodes),
    ...sc('tasks', m.tasks),
    ...sc('samples', m.samples),
    ...sc('loss/total', m.loss),
    ...sc('loss/pg', m.pgLoss),
    ...sc('loss/kl', m.klLoss),
    ...sc('train/clip_fraction', m.clipFraction),
    ...sc('train/approx_kl', m.approxKl),
    ...sc('train/distill_reverse_kl', m.distillReverseKl),
    ...sc('train/distill_top_kl', m.distillTopKl),
    ...sc('train/distill_prefetched', m.distillPrefetched),
    ...sc('train/distill_kept', m.distillKept),
    ...sc('train/entropy', m.entropy),
    ...sc('train/grad_norm', m.gradNorm),
    ...sc('train/trained_tokens', m.trainedTokens),
    ...sc('time/step_s', m.seconds),
    ...sc('dropped/zero_advantage', m.droppedZeroAdvantage),
    ...sc('dropped/stale', m.droppedStale),
    ...sc('staleness/max', m.maxStaleness),
    ...sc('staleness/dropped_over_bound', m.health?.droppedOverBound ?? null),
    ...sc('weight_version', m.weightVersion),
    ...cacheScalars(m),
  ];
}

export interface MergeStatsEvent {
  episodes: number;
  callsIn: number;
  samplesOut: number;
  tokensBefore: number;
  tokensAfter: number;
  compressionRatio: number;
  breakCounts: Record<string, number>;
}

export function mergeScalars(e: MergeStatsEvent): Scalar[] {
  return [
    ...sc('merge/tokens_before', e.tokensBefore),
    ...sc('merge/tokens_after', e.tokensAfter),
    ...sc('merge/compression_ratio', e.compressionRatio),
    ...sc('merge/calls_in', e.callsIn),
    ...sc('merge/samples_out', e.samplesOut),
    ...sc('merge/samples_per_episode', e.episodes > 0 ? e.samplesOut / e.episodes : null),
    ...Object.entries(e.breakCounts).map(([cause, n]) => ({ tag: `merge/breaks/${cause}`, value: n })),
  ];
}

export function evalScalars(r: Pick<EvalResult, 'episodes' | 'rewardMean' | 'successRate'>): Scalar[] {
  return [
    ...sc('eval/success_rate', r.successRate),
    ...sc('eval/reward_mean', r.rewardMean),
    ...sc('eval/episodes', r.episodes),
  ];
}

/** A stored step point (the workbench's): the same tags where the point has the figure. */
export function storedStepScalars(p: StepPoint): Scalar[] {
  return [
    ...sc('reward/mean', p.rewardMean),
    ...sc('reward/min', p.rewardMin),
    ...sc('reward/max', p.rewardMax),
    ...sc('success_rate', p.successRate),
    ...sc('episodes', p.episodes),
    ...sc('samples', p.samples),
    ...sc('loss/total', p.loss),
    ...sc('train/approx_kl', p.approxKl),
    ...sc('train/entropy', p.entropy),
    ...sc('time/rollout_s', p.rolloutS),
    ...sc('time/update_s', p.updateS),
    ...sc('weight_version', p.weightVersion),
    ...sc('merge/tokens_before', p.tokensBefore),
    ...sc('merge/tokens_after', p.tokensAfter),
    ...sc('merge/compression_ratio', p.compressionRatio),
    ...sc('merge/samples_per_episode', p.samplesPerEpisode),
    ...Object.entries(p.breakCounts).map(([cause, n]) => ({ tag: `merge/breaks/${cause}`, value: n })),
    ...cacheScalars(p),
  ];
}

/** Stored eval points, the latest per weight version (a round reported several times). */
export function latestEvalPerVersion(points: readonly EvalPoint[]): EvalPoint[] {
  const by = new Map<number, EvalPoint>();
  for (const p of points) {
    const prev = by.get(p.weightVersion);
    if (!prev || p.time >= prev.time) by.set(p.weightVersion, p);
  }
  return [...by.values()].sort((a, b) => a.weightVersion - b.weightVersion);
}
