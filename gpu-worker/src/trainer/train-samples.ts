// Turns scored episodes into engine train samples: the episode's recorded calls are merged
// (timeline merging, linear by default), then every sample gets its episode's advantage (GRPO,
// RLOO or REINFORCE with a baseline, grouped by task). Pure: data in, data out.
import { computeAdvantages, type AdvantageEstimator } from '../../../src/shared/advantages';
import type { TrainSample } from '../../../src/shared/engine-protocol';
import { mergeTimelines, type MatchLevel, type MergeStats, type Timeline } from '../../../src/shared/timeline/index';

export interface ScoredEpisode {
  episodeId: string;
  groupKey: string;
  reward: number;
  timelines: readonly Timeline[];
}

export interface SampleOptions {
  estimator: AdvantageEstimator;
  /** `none` trains every call on its own; `linear` merges calls that extend each other. */
  merge: 'none' | 'linear';
  level?: MatchLevel;
  /** Skip episodes whose advantage is 0 (zero-variance groups): they carry no gradient. */
  dropZeroAdvantage?: boolean;
}

export interface BuiltSamples {
  samples: TrainSample[];
  /** One per input episode, in input order. */
  advantages: number[];
  droppedEpisodes: number;
  merge: MergeStats;
}

export function buildTrainSamples(episodes: readonly ScoredEpisode[], opts: SampleOptions): BuiltSamples {
  const advantages = computeAdvantages(episodes, { estimator: opts.estimator });
  const advantageOf = new Map<string, number>();
  let droppedEpisodes = 0;
  const kept: Timeline[] = [];
  episodes.forEach((ep, i) => {
    const advantage = advantages[i]!;
    if (opts.dropZeroAdvantage && advantage === 0) {
      droppedEpisodes++;
      return;
    }
    advantageOf.set(ep.episodeId, advantage);
    kept.push(...ep.timelines);
  });
  const merged = mergeTimelines(kept, { mode: opts.merge, level: opts.level ?? 'token' });
  const samples: TrainSample[] = [];
  for (const s of merged.samples) {
    if (s.kind !== 'linear') throw new Error('tree samples are not trained through buildTrainSamples');
    if (!s.lossMask.includes(1)) continue;
    samples.push({ tokenIds: s.tokenIds, lossMask: s.lossMask, advantages: advantageOf.get(s.episodeId) ?? 0, rolloutLogprobs: s.rolloutLogprobs });
  }
  return { samples, advantages, droppedEpisodes, merge: merged.stats };
}
