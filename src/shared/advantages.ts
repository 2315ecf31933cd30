// Advantage estimators over episodes grouped by task: GRPO, RLOO and REINFORCE with a baseline.
// Pure: rewards in, advantages out, in the input order.

export type AdvantageEstimator = 'grpo' | 'rloo' | 'reinforce';

export interface Scored {
  groupKey: string;
  reward: number;
}

export interface AdvantageOptions {
  estimator: AdvantageEstimator;
  /** GRPO: add to the std before dividing. */
  epsilon?: number;
  /** GRPO: divide by the group std (Dr. GRPO sets this false). */
  normalizeStd?: boolean;
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Population standard deviation. */
export function std(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
}

function groupIndices(items: readonly Scored[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const list = groups.get(item.groupKey);
    if (list) list.push(i);
    else groups.set(item.groupKey, [i]);
  });
  return groups;
}

/**
 * One advantage per item. GRPO: (r − mean_g) / (std_g + ε). RLOO: r − mean of the other members
 * of the group (0 for a group of one). REINFORCE: r − mean over the whole batch.
 */
export function computeAdvantages(items: readonly Scored[], opts: AdvantageOptions): number[] {
  const out = new Array<number>(items.length).fill(0);
  if (opts.estimator === 'reinforce') {
    const baseline = mean(items.map((x) => x.reward));
    return items.map((x) => x.reward - baseline);
  }
  for (const idx of groupIndices(items).values()) {
    const rewards = idx.map((i) => items[i]!.reward);
    const m = mean(rewards);
    if (opts.estimator === 'grpo') {
      const denom = opts.normalizeStd === false ? 1 : std(rewards) + (opts.epsilon ?? 1e-6);
      // A zero-variance group carries no signal: its advantages are exactly 0, never 0/0.
      idx.forEach((i, k) => (out[i] = rewards[k] === m ? 0 : (rewards[k]! - m) / denom));
    } else {
      const n = idx.length;
      const total = rewards.reduce((a, b) => a + b, 0);
      idx.forEach((i, k) => (out[i] = n > 1 ? rewards[k]! - (total - rewards[k]!) / (n - 1) : 0));
    }
  }
  return out;
}
