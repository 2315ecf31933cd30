// One policy update, the way the worker's trainer and `agentjet demo` both run it: the episodes'
// timelines merged and their advantages computed with the training config (algo, merge, level;
// zero-advantage episodes dropped), then the engine's PPO-clip `train_step` with the config's
// hyper-parameters. Nothing to train (every group's rewards equal) means no engine call. The
// inspector's preview of an episode not trained yet comes from the same sample builder.
import type { TrainHyper, TrainStats } from '../../../src/shared/engine-protocol';
import type { TrainingConfig } from '../../../src/shared/options/index';
import type { EngineCaller } from '../engine/engine-caller';
import type { MergedSample, MergeStats } from '../../../src/shared/timeline/index';
import {
  buildTrainSamples,
  trainedOfEpisode,
  type BuiltSamples,
  type SampleOptions,
  type ScoredEpisode,
} from './train-samples';
import { withTeacher } from './distill-step';
import type { Teacher } from './teacher';

export type TrainSettings = Pick<
  TrainingConfig,
  | 'algo'
  | 'scaleRewards'
  | 'merge'
  | 'level'
  | 'lr'
  | 'clipLow'
  | 'clipHigh'
  | 'klCoef'
  | 'maxGradNorm'
  | 'microBatchTokens'
  | 'correction'
  | 'correctionCap'
  | 'correctionLow'
  | 'correctionHigh'
> &
  Partial<Pick<TrainingConfig, 'distillWeight' | 'distillKeep'>>;

/** The engine's hyper-parameters of a training config. */
export const hyperOf = (t: TrainSettings): TrainHyper => ({
  lr: t.lr,
  clipLow: t.clipLow,
  clipHigh: t.clipHigh,
  klCoef: t.klCoef,
  maxGradNorm: t.maxGradNorm,
  microBatchTokens: t.microBatchTokens,
  ...(t.correction !== 'none'
    ? {
        correction: t.correction,
        correctionCap: t.correctionCap,
        correctionLow: t.correctionLow,
        correctionHigh: t.correctionHigh,
      }
    : {}),
});

/** How an update under `t` builds its samples. */
const sampleOptions = (t: TrainSettings): SampleOptions => ({
  estimator: t.algo,
  scale: t.scaleRewards,
  merge: t.merge,
  level: t.level,
  dropZeroAdvantage: true,
  maxTreeTokens: t.microBatchTokens,
});

/** The samples an update trains on (pure). */
export const samplesFor = (episodes: readonly ScoredEpisode[], t: TrainSettings): BuiltSamples =>
  buildTrainSamples(episodes, sampleOptions(t));

/** Every episode's samples, a flat group's too: what a distilling update trains on (pure). */
export const allSamplesFor = (episodes: readonly ScoredEpisode[], t: TrainSettings): BuiltSamples =>
  buildTrainSamples(episodes, { ...sampleOptions(t), dropZeroAdvantage: false });

/**
 * What an update under `t` would train of one episode of `group` (the episodes that would train with
 * it, in pool order): the samples holding its tokens, picked from the update's own samples
 * (`samplesFor`: merged, and with `tree` packed per task group where the cost model says it pays).
 * Where none would hold its tokens — its advantage is zero, or the rewards are not all in yet
 * (`rewarded: false`) — the group is built keeping every episode, so its merge stays inspectable.
 */
export function previewSamples(
  group: readonly ScoredEpisode[],
  episodeId: string,
  t: TrainSettings,
  rewarded = true,
): { samples: MergedSample[]; stats: MergeStats } {
  const calls = group.find((e) => e.episodeId === episodeId)?.timelines ?? [];
  if (rewarded) {
    const trained = trainedOfEpisode(samplesFor(group, t), episodeId, calls);
    if (trained.samples.length > 0) return trained;
  }
  return trainedOfEpisode(allSamplesFor(group, t), episodeId, calls);
}

export interface TrainedStep {
  built: BuiltSamples;
  /** null: no sample carried a gradient, the engine was not called. */
  stats: TrainStats | null;
  /** With a teacher: the mean reverse-KL estimate (student − teacher logprob) over the trained tokens. */
  distillReverseKl?: number;
  /** With the teacher's top-k: the engine's mean KL to it over the trained tokens (what it trained on). */
  distillTopKl?: number;
  /** With a teacher: the fraction of the update's samples that trained (`distillKeep`). */
  distillKept?: number;
}

/**
 * With a `teacher` (and a distillation weight above 0), every episode trains — a group whose rewards
 * are equal still carries the teacher's signal — and the per-token advantages mix in the teacher's
 * logprobs of the sampled tokens, or the engine adds the teacher's top-k term (distill-step.ts). With
 * `distillKeep` < 1 only the samples where the teacher disagrees most train (`built` keeps those, so
 * the inspector shows what trained).
 */
export async function trainOnEpisodes(
  engine: EngineCaller,
  episodes: readonly ScoredEpisode[],
  t: TrainSettings,
  teacher?: Teacher | null,
): Promise<TrainedStep> {
  const weight = teacher ? (t.distillWeight ?? 1) : 0;
  if (!teacher || weight === 0) {
    const built = samplesFor(episodes, t);
    const stats =
      built.samples.length > 0 ? await engine.call('train_step', { samples: built.samples, hyper: hyperOf(t) }) : null;
    return { built, stats };
  }
  const built = allSamplesFor(episodes, t);
  if (built.samples.length === 0) return { built, stats: null };
  const distilled = await withTeacher(built.samples, teacher, weight, t.distillKeep ?? 1);
  const hyper = { ...hyperOf(t), ...(distilled.distillCoef > 0 ? { distillCoef: distilled.distillCoef } : {}) };
  const stats = await engine.call('train_step', { samples: distilled.samples, hyper });
  return {
    built: { ...built, samples: distilled.samples, trained: distilled.kept.map((i) => built.trained[i]!) },
    stats,
    distillReverseKl: distilled.reverseKl,
    distillKept: distilled.kept.length / built.samples.length,
    ...(distilled.distillCoef > 0 && stats.distillKl !== undefined ? { distillTopKl: stats.distillKl } : {}),
  };
}
