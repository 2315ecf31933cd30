// One policy update, the way the worker's trainer and `agentjet demo` both run it: the episodes'
// timelines merged and their advantages computed with the training config (algo, merge, level;
// zero-advantage episodes dropped), then the engine's PPO-clip `train_step` with the config's
// hyper-parameters. Nothing to train (every group's rewards equal) means no engine call.
import type { TrainHyper, TrainStats } from '../../../src/shared/engine-protocol';
import type { TrainingConfig } from '../../../src/shared/options/index';
import type { EngineCaller } from '../engine/engine-caller';
import { buildTrainSamples, type BuiltSamples, type ScoredEpisode } from './train-samples';

export type TrainSettings = Pick<
  TrainingConfig,
  'algo' | 'merge' | 'level' | 'lr' | 'clipLow' | 'clipHigh' | 'klCoef' | 'maxGradNorm' | 'microBatchTokens'
>;

/** The engine's hyper-parameters of a training config. */
export const hyperOf = (t: TrainSettings): TrainHyper => ({
  lr: t.lr,
  clipLow: t.clipLow,
  clipHigh: t.clipHigh,
  klCoef: t.klCoef,
  maxGradNorm: t.maxGradNorm,
  microBatchTokens: t.microBatchTokens,
});

/** The samples an update trains on (pure). */
export const samplesFor = (episodes: readonly ScoredEpisode[], t: TrainSettings): BuiltSamples =>
  buildTrainSamples(episodes, { estimator: t.algo, merge: t.merge, level: t.level, dropZeroAdvantage: true });

export interface TrainedStep {
  built: BuiltSamples;
  /** null: no sample carried a gradient, the engine was not called. */
  stats: TrainStats | null;
}

export async function trainOnEpisodes(
  engine: EngineCaller,
  episodes: readonly ScoredEpisode[],
  t: TrainSettings,
): Promise<TrainedStep> {
  const built = samplesFor(episodes, t);
  const stats =
    built.samples.length > 0 ? await engine.call('train_step', { samples: built.samples, hyper: hyperOf(t) }) : null;
  return { built, stats };
}
