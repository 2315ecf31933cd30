// Advantage estimators over episodes grouped by task: GRPO, RLOO and REINFORCE with a baseline.
// Pure: rewards in, advantages out, in the input order.

export type AdvantageEstimator = 'grpo' | 'rloo' | 'reinforce';

/**
 * What GRPO divides a reward's distance from its group mean by (TRL's `scale_rewards`): the group's
 * std (the GRPO paper), the whole update's std (`batch`: a group whose rewards differ by a hair keeps
 * advantages of a hair, where `group` would blow them up to ±1 — what a continuous, noisy reward such
 * as a reward model's score needs), or nothing (`none`, Dr. GRPO).
 */
export const REWARD_SCALES = ['group', 'batch', 'none'] as const;
export type RewardScale = (typeof REWARD_SCALES)[number];

export interface Scored {
  groupKey: string;
  /** The role the episode played, when one model plays several: REINFORCE's baseline is per role. */
  role?: string;
  reward: number;
}

export interface AdvantageOptions {
  estimator: AdvantageEstimator;
  /** GRPO: add to the std before dividing. */
  epsilon?: number;
  /** GRPO: what to divide by (default `group`). */
  scale?: RewardScale;
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

function groupIndices(items: readonly Scored[], keyOf = (x: Scored): string => x.groupKey): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const key = keyOf(item);
    const list = groups.get(key);
    if (list) list.push(i);
    else groups.set(key, [i]);
  });
  return groups;
}

/**
 * One advantage per item. GRPO: (r − mean_g) / (std_g + ε), or over the batch's std, or undivided
 * (`scale`). RLOO: r − mean of the other members
 * of the group (0 for a group of one). REINFORCE: r − mean over the batch's episodes of the same role
 * (the whole batch when no episode names a role): roles of one shared model are rewarded on different
 * scales, and one baseline across them would push each role by the other's rewards.
 */
export function computeAdvantages(items: readonly Scored[], opts: AdvantageOptions): number[] {
  const out = new Array<number>(items.length).fill(0);
  if (opts.estimator === 'reinforce') {
    for (const idx of groupIndices(items, (x) => x.role ?? '').values()) {
      const baseline = mean(idx.map((i) => items[i]!.reward));
      for (const i of idx) out[i] = items[i]!.reward - baseline;
    }
    return out;
  }
  const scale = opts.scale ?? 'group';
  const batchStd = scale === 'batch' ? std(items.map((x) => x.reward)) : 0;
  for (const idx of groupIndices(items).values()) {
    const rewards = idx.map((i) => items[i]!.reward);
    const m = mean(rewards);
    if (opts.estimator === 'grpo') {
      const spread = scale === 'group' ? std(rewards) : batchStd;
      const denom = scale === 'none' ? 1 : spread + (opts.epsilon ?? 1e-6);
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
