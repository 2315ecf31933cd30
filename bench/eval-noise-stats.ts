// Pure figures of the `eval-noise` bench: how much of a held-out success rate's binomial standard error is
// run-to-run measurement noise when every evaluation plays the same task set (the eval split), and the
// paired standard error of a gain measured on that set (before and after training, task by task).

export interface RepeatNoise {
  /** Success rate of each repeat. */
  rates: number[];
  mean: number;
  /** Sample standard deviation of the repeats' rates: the measured run-to-run noise of one evaluation. */
  sdAcross: number | null;
  /** √(p(1 − p)/n): the noise if the tasks themselves were drawn afresh for every evaluation. */
  binomialSe: number;
  /**
   * √(Σ s_i²)/n with s_i² = K/(K − 1)·p̂_i(1 − p̂_i) per task over K repeats: the expected noise of one
   * evaluation on this fixed task set (the policy's sampling only).
   */
  withinTaskSe: number | null;
  /** Tasks solved in every repeat, in none, and in some. */
  always: number;
  never: number;
  mixed: number;
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

export function sampleSd(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

/** `repeats[k][i]`: whether task i succeeded in repeat k (every repeat plays the same tasks in the same order). */
export function repeatNoise(repeats: readonly (readonly boolean[])[]): RepeatNoise {
  const k = repeats.length;
  const n = repeats[0]?.length ?? 0;
  if (k === 0 || n === 0 || repeats.some((r) => r.length !== n))
    throw new Error('repeatNoise: at least one repeat, all of the same non-zero length');
  const rates = repeats.map((r) => r.filter(Boolean).length / n);
  const p = mean(rates);
  const perTask = Array.from({ length: n }, (_, i) => repeats.filter((r) => r[i]).length / k);
  const within = k > 1 ? perTask.reduce((s, q) => s + (k / (k - 1)) * q * (1 - q), 0) : null;
  return {
    rates,
    mean: p,
    sdAcross: sampleSd(rates),
    binomialSe: Math.sqrt((p * (1 - p)) / n),
    withinTaskSe: within === null ? null : Math.sqrt(within) / n,
    always: perTask.filter((q) => q === 1).length,
    never: perTask.filter((q) => q === 0).length,
    mixed: perTask.filter((q) => q > 0 && q < 1).length,
  };
}

/**
 * The gain after − before on the same tasks: its value and paired standard error sd(d_i)/√n, d_i ∈ {−1, 0, 1}
 * (smaller than the independent √(SE_before² + SE_after²) when a task's outcome before predicts it after).
 */
export function pairedGain(
  before: readonly boolean[],
  after: readonly boolean[],
): { gain: number; pairedSe: number; independentSe: number } {
  const n = before.length;
  if (n === 0 || after.length !== n) throw new Error('pairedGain: the same non-zero number of tasks before and after');
  const d = before.map((b, i) => Number(after[i]) - Number(b));
  const p0 = before.filter(Boolean).length / n;
  const p1 = after.filter(Boolean).length / n;
  return {
    gain: mean(d),
    pairedSe: (sampleSd(d) ?? 0) / Math.sqrt(n),
    independentSe: Math.sqrt((p0 * (1 - p0)) / n + (p1 * (1 - p1)) / n),
  };
}
