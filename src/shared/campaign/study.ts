// The statistics of a study (docs/studies.md): per arm the mean over seeds and its standard error;
// for a pair of arms the difference of means with Welch's standard error and a verdict by Welch's
// t-test (two-sided, 5 %, Welch–Satterthwaite degrees of freedom: with the two or three seeds a CPU
// affords, t's heavy tails matter — 3 standard errors at 2 seeds per arm is p ≈ 0.1, not 0.003), and
// the seeds per arm a two-sided 5 % t-test needs for 80 % power to detect a given effect at the noise
// measured; for a set of arms (framework transparency) the largest pairwise difference and the mean
// absolute deviation from the grand mean, with standard errors by a seeded parametric bootstrap (the
// maximum and the absolute value are biased, so no closed form is honest). Student's t is jStat's.
import jstat from 'jstat';
import { createPrng, type Prng } from '../prng';
import { spread, type Spread } from './trials';

const { jStat } = jstat;

export { spread, type Spread };

/** The test's level: a verdict is given when the two-sided p-value is below it. */
export const ALPHA = 0.05;
/** The power the seed counts are sized for. */
const POWER = 0.8;

/** Two-sided p-value of a t statistic with `df` degrees of freedom. */
export function twoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return 2 * (1 - jStat.studentt.cdf(Math.abs(t), df));
}

/** t_{1−α/2} + t_{power} at `df`: the multiplier of the standard error a detectable effect needs. */
function powerMultiplier(df: number): number {
  return jStat.studentt.inv(1 - ALPHA / 2, df) + jStat.studentt.inv(POWER, df);
}

export interface ArmValues {
  arm: string;
  values: readonly number[];
}

/** Sample standard deviation (n − 1); null below two values. */
export function sampleSd(values: readonly number[]): number | null {
  const s = spread(values);
  return s?.se == null ? null : s.se * Math.sqrt(s.n);
}

export interface Difference {
  a: string;
  b: string;
  /** mean(a) − mean(b). */
  diff: number;
  /** Welch: √(se_a² + se_b²); null when an arm has fewer than two values. */
  se: number | null;
  /** Welch–Satterthwaite degrees of freedom (null with se). */
  df: number | null;
  verdict: Verdict;
}

export type Verdict =
  | { kind: 'a_better'; text: string }
  | { kind: 'b_better'; text: string }
  | { kind: 'no_difference'; text: string }
  | { kind: 'undecided'; text: string };

/** `higherIsBetter`: the metric's direction (a success rate: true; a loss: false). */
export function compare(a: ArmValues, b: ArmValues, higherIsBetter = true): Difference | null {
  const sa = spread(a.values);
  const sb = spread(b.values);
  if (!sa || !sb) return null;
  const diff = sa.mean - sb.mean;
  if (sa.se === null || sb.se === null)
    return {
      a: a.arm,
      b: b.arm,
      diff,
      se: null,
      df: null,
      verdict: { kind: 'undecided', text: 'no verdict: each arm needs at least two seeds for a standard error' },
    };
  const va = sa.se ** 2;
  const vb = sb.se ** 2;
  const se = Math.sqrt(va + vb);
  const df = va + vb === 0 ? null : (va + vb) ** 2 / (va ** 2 / (sa.n - 1) + vb ** 2 / (sb.n - 1));
  return { a: a.arm, b: b.arm, diff, se, df, verdict: verdictOf(a.arm, b.arm, diff, se, df, higherIsBetter) };
}

/**
 * Welch's t-test of `diff` ± `se` at `df` degrees of freedom (null: both arms without spread, so the
 * difference, if any, is exact). A verdict when the two-sided p-value is below ALPHA.
 */
export function verdictOf(
  a: string,
  b: string,
  diff: number,
  se: number,
  df: number | null,
  higherIsBetter = true,
): Verdict {
  const t = se > 0 ? diff / se : diff === 0 ? 0 : Math.sign(diff) * Infinity;
  const p = t === 0 ? 1 : df === null || !Number.isFinite(t) ? 0 : twoSidedP(t, df);
  const stat = Number.isFinite(t)
    ? `t = ${Math.abs(t).toFixed(1)}, df ${df?.toFixed(1) ?? '∞'}, p = ${formatP(p)}`
    : 'no spread';
  if (p >= ALPHA) return { kind: 'no_difference', text: `no difference detectable at this budget (${stat})` };
  const aWins = diff > 0 === higherIsBetter;
  return { kind: aWins ? 'a_better' : 'b_better', text: `${aWins ? a : b} better (${stat})` };
}

function formatP(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toFixed(p < 0.01 ? 3 : 2);
}

/**
 * Seeds per arm to detect a true difference `effect` with 80 % power in a two-sided 5 % t-test, given
 * the per-seed standard deviations measured: the smallest n with (t₀.₉₇₅ + t₀.₈)(df = 2n − 2) ·
 * √((σa² + σb²)/n) ≤ δ (about one more than the normal approximation's (1.96 + 0.84)² (σa² + σb²)/δ²).
 * At least 2 (a standard error needs two); null when the noise is unknown or the effect is not positive.
 */
export function seedsNeeded(sdA: number | null, sdB: number | null, effect: number): number | null {
  if (sdA === null || sdB === null || !(effect > 0)) return null;
  const v = sdA ** 2 + sdB ** 2;
  const zStart = Math.ceil(((1.959964 + 0.841621) ** 2 * v) / effect ** 2); // the normal approximation
  let n = Math.max(2, zStart);
  while (n < 1_000_000 && powerMultiplier(2 * n - 2) * Math.sqrt(v / n) > effect) n++;
  return n;
}

/** The smallest difference detectable with 80 % power at `seeds` per arm and this noise (t-test). */
export function detectableEffect(sdA: number | null, sdB: number | null, seeds: number): number | null {
  if (sdA === null || sdB === null || seeds < 2) return null;
  return powerMultiplier(2 * seeds - 2) * Math.sqrt((sdA ** 2 + sdB ** 2) / seeds);
}

export interface PowerStatement {
  effect: number;
  seedsPerArm: number;
  /** Seeds per arm needed for the effect (null: noise unknown). */
  needed: number | null;
  /** What the seeds run can detect with 80 % power. */
  detectable: number | null;
  text: string;
}

export function power(a: ArmValues, b: ArmValues, effect: number, fmt: (x: number) => string): PowerStatement {
  const sdA = sampleSd(a.values);
  const sdB = sampleSd(b.values);
  const seedsPerArm = Math.min(a.values.length, b.values.length);
  // Every seed of both arms alike (a floor or a ceiling): zero spread measures no noise, so it states no budget.
  const flat = sdA === 0 && sdB === 0;
  const needed = flat ? null : seedsNeeded(sdA, sdB, effect);
  const detectable = flat ? null : detectableEffect(sdA, sdB, seedsPerArm);
  const text = flat
    ? 'every seed of both arms gave the same value (a floor or a ceiling?): no noise is measured, so no ' +
      'power statement'
    : needed === null || detectable === null
      ? `the noise is not measured yet (two seeds per arm give it); no power statement`
      : `to detect a difference of ${fmt(effect)} (80 % power, two-sided 5 %) at the per-seed spread measured ` +
        `(sd ${fmt(sdA ?? 0)} and ${fmt(sdB ?? 0)}) takes ${needed} seeds per arm; ` +
        `the ${seedsPerArm} seeds run can detect ${fmt(detectable)}`;
  return { effect, seedsPerArm, needed, detectable, text };
}

export interface Dispersion {
  arms: string[];
  /** Largest |mean_i − mean_j| over pairs of arms, with its bootstrap standard error and the pair. */
  maxDiff: { value: number; se: number | null; pair: [string, string] };
  /** Mean over arms of |mean_i − grand mean|, with its bootstrap standard error. */
  mad: { value: number; se: number | null };
  /**
   * What noise alone gives: every arm's mean drawn from the grand mean ± its own SE (no true difference).
   * `expected*`: the mean of those draws; `p*`: the share of draws at least as large as observed (a
   * permutation-free test of "the arms differ at all"). Null when an arm has no SE.
   */
  noise: { expectedMaxDiff: number; expectedMad: number; pMaxDiff: number; pMad: number } | null;
}

function normal(rng: Prng): number {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

function maxPair(means: readonly number[]): { value: number; i: number; j: number } {
  let best = { value: 0, i: 0, j: 0 };
  for (let i = 0; i < means.length; i++)
    for (let j = i + 1; j < means.length; j++) {
      const d = Math.abs(means[i]! - means[j]!);
      if (d > best.value) best = { value: d, i, j };
    }
  return best;
}

function mad(means: readonly number[]): number {
  const g = means.reduce((s, m) => s + m, 0) / means.length;
  return means.reduce((s, m) => s + Math.abs(m - g), 0) / means.length;
}

/** How far apart a set of arms is; null below two arms with values. Deterministic (seeded). */
export function dispersion(arms: readonly ArmValues[], draws = 2000, seed = 1): Dispersion | null {
  const s = arms.flatMap((a) => {
    const sp = spread(a.values);
    return sp ? [{ arm: a.arm, ...sp }] : [];
  });
  if (s.length < 2) return null;
  const means = s.map((x) => x.mean);
  const top = maxPair(means);
  const observed = { max: top.value, mad: mad(means) };
  const known = s.every((x) => x.se !== null);
  let maxSe: number | null = null;
  let madSe: number | null = null;
  let noise: Dispersion['noise'] = null;
  if (known) {
    const rng = createPrng(seed);
    const maxes: number[] = [];
    const mads: number[] = [];
    const grand = means.reduce((a, m) => a + m, 0) / means.length;
    const nullMax: number[] = [];
    const nullMad: number[] = [];
    for (let k = 0; k < draws; k++) {
      const m = s.map((x) => x.mean + (x.se ?? 0) * normal(rng));
      maxes.push(maxPair(m).value);
      mads.push(mad(m));
      const z = s.map((x) => grand + (x.se ?? 0) * normal(rng));
      nullMax.push(maxPair(z).value);
      nullMad.push(mad(z));
    }
    maxSe = sampleSd(maxes);
    madSe = sampleSd(mads);
    const avg = (v: readonly number[]): number => v.reduce((a, x) => a + x, 0) / v.length;
    const share = (v: readonly number[], x: number): number => v.filter((y) => y >= x).length / v.length;
    noise = {
      expectedMaxDiff: avg(nullMax),
      expectedMad: avg(nullMad),
      pMaxDiff: share(nullMax, observed.max),
      pMad: share(nullMad, observed.mad),
    };
  }
  return {
    arms: s.map((x) => x.arm),
    maxDiff: { value: observed.max, se: maxSe, pair: [s[top.i]!.arm, s[top.j]!.arm] },
    mad: { value: observed.mad, se: madSe },
    noise,
  };
}
