import { describe, expect, it } from 'vitest';
import { buildTrainSamples } from './train-samples';

const call = (prompt: number[], out: number[]) => ({ promptIds: prompt, outputIds: out, outputLogprobs: out.map((t) => -t / 10) });

describe('buildTrainSamples', () => {
  it('masks exactly the sampled tokens and aligns their rollout logprobs', () => {
    const { samples, advantages } = buildTrainSamples(
      [
        { groupKey: 't1', reward: 1, calls: [call([1, 2, 3], [4, 5]), call([1, 2, 3, 4, 5, 6], [7])] },
        { groupKey: 't1', reward: 0, calls: [call([1, 2, 3], [8])] },
      ],
      { estimator: 'grpo' },
    );
    expect(advantages[0]).toBeGreaterThan(0);
    expect(advantages[1]).toBeLessThan(0);
    expect(samples).toHaveLength(3);
    expect(samples[0]).toEqual({ tokenIds: [1, 2, 3, 4, 5], lossMask: [0, 0, 0, 1, 1], advantages: advantages[0], rolloutLogprobs: [0, 0, 0, -0.4, -0.5] });
    expect(samples[1]!.lossMask).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(samples[2]!.advantages).toBe(advantages[1]);
  });

  it('drops zero-advantage groups when asked and counts them', () => {
    const eps = [
      { groupKey: 'same', reward: 1, calls: [call([1], [2])] },
      { groupKey: 'same', reward: 1, calls: [call([1], [3])] },
      { groupKey: 'mixed', reward: 1, calls: [call([1], [4])] },
      { groupKey: 'mixed', reward: 0, calls: [call([1], [5])] },
    ];
    const kept = buildTrainSamples(eps, { estimator: 'grpo', dropZeroAdvantage: true });
    expect(kept.samples.map((s) => s.tokenIds[1])).toEqual([4, 5]);
    expect(kept.droppedEpisodes).toBe(2);
    expect(buildTrainSamples(eps, { estimator: 'grpo' }).samples).toHaveLength(4);
  });
});
