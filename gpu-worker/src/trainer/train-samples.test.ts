import { describe, expect, it } from 'vitest';
import { TimelineSchema, type Timeline } from '../../../src/shared/timeline/index';
import { buildTrainSamples, type ScoredEpisode } from './train-samples';

/** A call whose prompt is `prompt` (one user span, then a 1-token generation prompt) and output `out`. */
function call(episodeId: string, callIndex: number, prompt: number[], out: number[]): Timeline {
  return TimelineSchema.parse({
    id: `${episodeId}-${callIndex}`,
    episodeId,
    callIndex,
    messages: [{ role: 'user', content: 'x' }],
    promptIds: prompt,
    promptSpans: [
      { messageIndex: 0, role: 'user', start: 0, end: prompt.length - 1 },
      { messageIndex: -2, role: 'generation_prompt', start: prompt.length - 1, end: prompt.length },
    ],
    outputIds: out,
    outputLogprobs: out.map((t) => -t / 10),
    finishReason: 'stop',
    output: { role: 'assistant', content: 'y' },
    weightVersion: 0,
    createdAt: callIndex,
  });
}

describe('buildTrainSamples', () => {
  const episodes = [
    // Two calls where the second extends the first: linear merging makes one sample.
    {
      episodeId: 'a',
      groupKey: 't1',
      reward: 1,
      timelines: [call('a', 0, [1, 2, 3], [4, 5]), call('a', 1, [1, 2, 3, 4, 5, 6, 7], [8])],
    },
    { episodeId: 'b', groupKey: 't1', reward: 0, timelines: [call('b', 0, [1, 2, 3], [9])] },
  ];

  it("merges an episode's extending calls into one sample masked on every sampled token", () => {
    const { samples, advantages, merge } = buildTrainSamples(episodes, { estimator: 'grpo', merge: 'linear' });
    expect(advantages[0]).toBeGreaterThan(0);
    expect(samples).toHaveLength(2);
    expect(samples[0]).toEqual({
      tokenIds: [1, 2, 3, 4, 5, 6, 7, 8],
      lossMask: [0, 0, 0, 1, 1, 0, 0, 1],
      advantages: advantages[0],
      rolloutLogprobs: [0, 0, 0, -0.4, -0.5, 0, 0, -0.8],
    });
    expect(samples[1]!.advantages).toBe(advantages[1]);
    expect(merge.tokensBefore).toBe(5 + 8 + 4);
    expect(merge.tokensAfter).toBe(8 + 4);
  });

  it("scales GRPO's advantages by the update's reward std when asked (a hair-thin group stays thin)", () => {
    const scored: ScoredEpisode[] = [
      ...episodes,
      { episodeId: 'c', groupKey: 't2', reward: 0.51, timelines: [call('c', 0, [1, 2], [3])] },
      { episodeId: 'd', groupKey: 't2', reward: 0.49, timelines: [call('d', 0, [1, 2], [4])] },
    ];
    const group = buildTrainSamples(scored, { estimator: 'grpo', merge: 'linear' }).advantages;
    const batch = buildTrainSamples(scored, { estimator: 'grpo', merge: 'linear', scale: 'batch' }).advantages;
    expect(group[2]).toBeCloseTo(1, 3);
    expect(batch[2]! / batch[0]!).toBeCloseTo(0.02, 6); // 0.01 / 0.5: the groups keep their spreads' ratio
  });

  it('without merging trains every call on its own', () => {
    const { samples } = buildTrainSamples(episodes, { estimator: 'grpo', merge: 'none' });
    expect(samples.map((s) => s.tokenIds.length)).toEqual([5, 8, 4]);
  });

  it('in tree mode packs a task group into one prefix tree with per-token advantages and weights', () => {
    const { samples, advantages, merge } = buildTrainSamples(episodes, { estimator: 'grpo', merge: 'tree' });
    const [a, b] = [advantages[0]!, advantages[1]!];
    expect(samples).toEqual([
      {
        tokenIds: [1, 2, 3, 4, 5, 6, 7, 8, 9],
        lossMask: [0, 0, 0, 1, 1, 0, 0, 1, 1],
        advantages: [0, 0, 0, a, a, 0, 0, a, b],
        rolloutLogprobs: [0, 0, 0, -0.4, -0.5, 0, 0, -0.8, -0.9],
        parents: [-1, 0, 1, 2, 3, 4, 5, 6, 2],
        positions: [0, 1, 2, 3, 4, 5, 6, 7, 3],
        weights: [0, 0, 0, 1, 1, 0, 0, 1, 1],
      },
    ]);
    expect(merge.tokensBefore).toBe(5 + 8 + 4);
    expect(merge.tokensAfter).toBe(9);
    expect(merge.samplesOut).toBe(1);
  });

  it('packs different task groups into different trees', () => {
    const other = { episodeId: 'c', groupKey: 't2', reward: 0.5, timelines: [call('c', 0, [1, 2, 3], [7])] };
    const { samples } = buildTrainSamples([...episodes, other], { estimator: 'reinforce', merge: 'tree' });
    expect(samples).toHaveLength(2);
    expect(samples[1]).toMatchObject({ tokenIds: [1, 2, 3, 7], lossMask: [0, 0, 0, 1] });
    expect(samples[1]!.parents).toBeUndefined();
  });

  it('leaves a group unpacked when its tree would cost more than its chains', () => {
    const long = (id: string, first: number): ScoredEpisode => ({
      episodeId: id,
      groupKey: 'g',
      reward: first,
      timelines: [
        call(
          id,
          0,
          [1, 2, 3],
          Array.from({ length: 60 }, (_, i) => first + i),
        ),
      ],
    });
    const pair = [long('p', 100), long('q', 200)];
    // Sharing 3 tokens of 63 does not pay for the packed tree's quadratic attention …
    expect(
      buildTrainSamples(pair, { estimator: 'grpo', merge: 'tree', treeAttentionTokens: 16 }).samples.map(
        (s) => s.parents,
      ),
    ).toEqual([undefined, undefined]);
    // … unless attention is cheap next to per-token work.
    expect(
      buildTrainSamples(pair, { estimator: 'grpo', merge: 'tree', treeAttentionTokens: 1e6 }).samples,
    ).toHaveLength(1);
  });

  it('keeps every packed tree within maxTreeTokens, splitting a group into several trees', () => {
    const prompt = Array.from({ length: 10 }, (_, i) => i + 1);
    const group = [0, 1, 2, 3].map((i): ScoredEpisode => ({
      episodeId: `e${i}`,
      groupKey: 'g',
      reward: i % 2,
      timelines: [call(`e${i}`, 0, prompt, [100 + 2 * i, 101 + 2 * i])],
    }));
    const lengths = (maxTreeTokens?: number): number[] =>
      buildTrainSamples(group, {
        estimator: 'grpo',
        merge: 'tree',
        treeAttentionTokens: 1e6,
        ...(maxTreeTokens !== undefined ? { maxTreeTokens } : {}),
      }).samples.map((s) => s.tokenIds.length);
    expect(lengths()).toEqual([10 + 4 * 2]); // one tree: the prompt once, four 2-token branches
    expect(lengths(14)).toEqual([14, 14]); // two trees of two branches each
    expect(lengths(11)).toEqual([12, 12, 12, 12]); // a chain longer than the budget stays whole
  });

  it('drops zero-advantage groups when asked and counts them', () => {
    const same = [
      { episodeId: 'c', groupKey: 'same', reward: 1, timelines: [call('c', 0, [1, 2], [3])] },
      { episodeId: 'd', groupKey: 'same', reward: 1, timelines: [call('d', 0, [1, 2], [4])] },
    ];
    const kept = buildTrainSamples([...same, ...episodes], {
      estimator: 'grpo',
      merge: 'linear',
      dropZeroAdvantage: true,
    });
    expect(kept.droppedEpisodes).toBe(2);
    expect(kept.samples).toHaveLength(2);
  });
});
