// The reward model's score against the verifiable reward (pure): per-bin means over consecutive
// episodes for the chart, and how well the score separates verifiably good episodes from bad ones
// (ROC AUC, and the agreement of σ(score) > ½ with a positive verifiable reward).
import type { RewardPoint } from '../../../shared/rewards-api';

export interface RewardBinRow {
  /** Index of the bin's last episode (1-based), the x axis. */
  episode: number;
  rmScore: number;
  verifiable: number;
  episodes: number;
}

/** Means over bins of `size` consecutive episodes (the last bin may be smaller). */
export function rewardBins(points: readonly RewardPoint[], size: number): RewardBinRow[] {
  const n = Math.max(1, Math.floor(size));
  const out: RewardBinRow[] = [];
  for (let i = 0; i < points.length; i += n) {
    const bin = points.slice(i, i + n);
    const mean = (f: (p: RewardPoint) => number): number => bin.reduce((s, p) => s + f(p), 0) / bin.length;
    out.push({
      episode: i + bin.length,
      rmScore: mean((p) => p.rmScore),
      verifiable: mean((p) => p.verifiable),
      episodes: bin.length,
    });
  }
  return out;
}

/** A bin size that keeps the chart near `target` points. */
export const binSize = (count: number, target = 60): number => Math.max(1, Math.ceil(count / target));

export interface Separation {
  /** P(score of a verifiably good episode > score of a bad one); ties count ½; null without both kinds. */
  auc: number | null;
  /** Share of episodes where score > 0 agrees with verifiable > 0. */
  agreement: number | null;
  good: number;
  bad: number;
}

/** ROC AUC by ranks (Mann–Whitney U), O(n log n). */
export function separation(points: readonly RewardPoint[]): Separation {
  const good = points.filter((p) => p.verifiable > 0).map((p) => p.rmScore);
  const bad = points.filter((p) => p.verifiable <= 0).map((p) => p.rmScore);
  const agreement =
    points.length === 0 ? null : points.filter((p) => p.rmScore > 0 === p.verifiable > 0).length / points.length;
  if (good.length === 0 || bad.length === 0) return { auc: null, agreement, good: good.length, bad: bad.length };
  const all = [...good.map((s) => ({ s, g: true })), ...bad.map((s) => ({ s, g: false }))].sort((a, b) => a.s - b.s);
  let rankSumGood = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j < all.length && all[j]!.s === all[i]!.s) j++;
    const rank = (i + 1 + j) / 2; // average rank of a run of ties
    for (let k = i; k < j; k++) if (all[k]!.g) rankSumGood += rank;
    i = j;
  }
  const u = rankSumGood - (good.length * (good.length + 1)) / 2;
  return { auc: u / (good.length * bad.length), agreement, good: good.length, bad: bad.length };
}
