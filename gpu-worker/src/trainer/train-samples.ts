// Turns scored episodes into engine train samples: GRPO/RLOO/REINFORCE advantages per task
// group, each recorded call one sample (prompt unmasked, sampled tokens masked, their rollout
// logprobs aligned). Pure: data in, data out.
import { computeAdvantages, type AdvantageEstimator } from '../../../src/shared/advantages';
import type { TrainSample } from '../../../src/shared/engine-protocol';

export interface ScoredEpisode {
  groupKey: string;
  reward: number;
  calls: readonly { promptIds: readonly number[]; outputIds: readonly number[]; outputLogprobs: readonly number[] }[];
}

export interface SampleOptions {
  estimator: AdvantageEstimator;
  /** Skip samples whose advantage is 0 (zero-variance groups): they carry no gradient. */
  dropZeroAdvantage?: boolean;
}

export interface BuiltSamples {
  samples: TrainSample[];
  advantages: number[];
  /** Episodes whose samples were dropped for a zero advantage. */
  droppedEpisodes: number;
}

export function buildTrainSamples(episodes: readonly ScoredEpisode[], opts: SampleOptions): BuiltSamples {
  const advantages = computeAdvantages(episodes, { estimator: opts.estimator });
  const samples: TrainSample[] = [];
  let droppedEpisodes = 0;
  episodes.forEach((ep, i) => {
    const advantage = advantages[i]!;
    if (opts.dropZeroAdvantage && advantage === 0) {
      droppedEpisodes++;
      return;
    }
    for (const call of ep.calls) {
      if (call.outputIds.length === 0) continue;
      const n = call.promptIds.length;
      samples.push({
        tokenIds: [...call.promptIds, ...call.outputIds],
        lossMask: [...call.promptIds.map(() => 0 as const), ...call.outputIds.map(() => 1 as const)],
        advantages: advantage,
        rolloutLogprobs: [...new Array<number>(n).fill(0), ...call.outputLogprobs],
      });
    }
  });
  return { samples, advantages, droppedEpisodes };
}
