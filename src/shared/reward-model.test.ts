import { describe, expect, it } from 'vitest';
import {
  ensembleScore,
  goodProbability,
  RewardModelPointerSchema,
  rewardModelPointerSource,
  scoreCenter,
} from './reward-model';

const ref = (v: number) => ({ folder: `/rm/v${v}`, sha256: String(v).repeat(64), version: v });

describe('ensembleScore', () => {
  it('standardizes each member by its own statistics, then mean − k·std', () => {
    // Standardized: (3−1)/2 = 1, (0−(−2))/1 = 2, (10−10)/5 = 0 → mean 1, population std √(2/3).
    const s = ensembleScore(
      [3, 0, 10],
      [
        { mean: 1, std: 2 },
        { mean: -2, std: 1 },
        { mean: 10, std: 5 },
      ],
      2,
    );
    expect(s.members).toEqual([1, 2, 0]);
    expect(s.mean).toBeCloseTo(1);
    expect(s.std).toBeCloseTo(Math.sqrt(2 / 3));
    expect(s.score).toBeCloseTo(1 - 2 * Math.sqrt(2 / 3));
  });

  it('agreeing members are not penalized; a zero std leaves the score unscaled; a size mismatch is an error', () => {
    expect(
      ensembleScore(
        [1, 1],
        [
          { mean: 0, std: 1 },
          { mean: 0, std: 1 },
        ],
        5,
      ).score,
    ).toBe(1);
    expect(ensembleScore([4], [{ mean: 1, std: 0 }], 1).score).toBe(3);
    expect(() => ensembleScore([1, 2], [{ mean: 0, std: 1 }], 1)).toThrow('2 scores for 1 members');
  });
});

describe('scoreCenter', () => {
  it('is 0 where the logistic loss fixed the zero, the training mean for a pairwise-only model', () => {
    const scoreStats = { mean: 1.5, std: 0.5 };
    expect(scoreCenter({ loss: 'pointwise', scoreStats })).toBe(0);
    expect(scoreCenter({ loss: 'both', scoreStats })).toBe(0);
    expect(scoreCenter({ loss: 'pairwise', scoreStats })).toBe(1.5);
    // The probability of good is ½ exactly at the center.
    expect(goodProbability(1.5, { loss: 'pairwise', scoreStats })).toBe(0.5);
    expect(goodProbability(0, { loss: 'both', scoreStats })).toBe(0.5);
  });
});

describe('rewardModelPointerSource', () => {
  it('writes an ensemble with its first member as the single-model pointer', () => {
    const src = rewardModelPointerSource({ members: [ref(2), ref(3)], stdPenalty: 1 });
    const json = src.slice(src.indexOf('=') + 1, src.lastIndexOf(';'));
    const parsed = RewardModelPointerSchema.parse(JSON.parse(json));
    expect(parsed.rewardModel).toEqual(ref(2));
    expect(parsed.ensemble).toEqual({ members: [ref(2), ref(3)], stdPenalty: 1 });
  });

  it('refuses an ensemble of one member', () => {
    expect(
      RewardModelPointerSchema.safeParse({ rewardModel: ref(1), ensemble: { members: [ref(1)], stdPenalty: 1 } })
        .success,
    ).toBe(false);
  });
});
