import { describe, expect, it } from 'vitest';
import type { RewardPoint } from '../../../shared/rewards-api';
import { binSize, rewardBins, separation } from './reward-series';

const pt = (rmScore: number, verifiable: number, i = 0): RewardPoint => ({
  episodeId: `e${i}`,
  createdAt: i,
  rmScore,
  verifiable,
  codeVersion: null,
});

describe('reward series', () => {
  it('bins consecutive episodes', () => {
    const rows = rewardBins([pt(1, 1), pt(3, 0), pt(-1, 0)], 2);
    expect(rows).toEqual([
      { episode: 2, rmScore: 2, verifiable: 0.5, episodes: 2 },
      { episode: 3, rmScore: -1, verifiable: 0, episodes: 1 },
    ]);
    expect(binSize(600)).toBe(10);
    expect(binSize(3)).toBe(1);
  });

  it('measures separation: perfect, reversed, ties, and one-sided', () => {
    expect(separation([pt(2, 1), pt(1, 1), pt(-1, 0), pt(0.5, 0)])).toMatchObject({
      auc: 1,
      agreement: 0.75,
      good: 2,
      bad: 2,
    });
    expect(separation([pt(-2, 1), pt(2, 0)]).auc).toBe(0);
    expect(separation([pt(1, 1), pt(1, 0)]).auc).toBe(0.5);
    expect(separation([pt(1, 1)])).toMatchObject({ auc: null, agreement: 1 });
    expect(separation([])).toMatchObject({ auc: null, agreement: null });
  });
});
