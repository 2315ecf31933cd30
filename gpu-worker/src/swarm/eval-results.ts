// Evaluation results per weight version: eval episodes' rewards and successes accumulated by the
// version that sampled the episode (its oldest call), restored from the last checkpoint's state.
import type { EvalResult } from '../../../src/shared/swarm-protocol';

interface Accumulator {
  episodes: number;
  rewardSum: number;
  successes: number;
  withSuccess: number;
}

export class EvalResults {
  private readonly byVersion = new Map<number, Accumulator>();

  constructor(saved: readonly EvalResult[] = []) {
    for (const r of saved) {
      this.byVersion.set(r.weightVersion, {
        episodes: r.episodes,
        rewardSum: r.rewardMean * r.episodes,
        successes: (r.successRate ?? 0) * r.episodes,
        withSuccess: r.successRate === null ? 0 : r.episodes,
      });
    }
  }

  /** Adds one eval episode; returns the version's figures so far. */
  add(weightVersion: number, reward: number, success: boolean | undefined): EvalResult {
    const acc = this.byVersion.get(weightVersion) ?? { episodes: 0, rewardSum: 0, successes: 0, withSuccess: 0 };
    acc.episodes += 1;
    acc.rewardSum += reward;
    if (success !== undefined) {
      acc.withSuccess += 1;
      acc.successes += success ? 1 : 0;
    }
    this.byVersion.set(weightVersion, acc);
    return result(weightVersion, acc);
  }

  /** Every version's figures, oldest version first. */
  list(): EvalResult[] {
    return [...this.byVersion.entries()].sort(([a], [b]) => a - b).map(([v, a]) => result(v, a));
  }
}

function result(weightVersion: number, a: Accumulator): EvalResult {
  return {
    weightVersion,
    episodes: a.episodes,
    rewardMean: a.rewardSum / Math.max(1, a.episodes),
    successRate: a.withSuccess > 0 ? a.successes / a.withSuccess : null,
  };
}
