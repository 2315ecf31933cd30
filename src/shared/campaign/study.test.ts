import { describe, expect, it } from 'vitest';
import { compare, detectableEffect, dispersion, power, sampleSd, seedsNeeded, twoSidedP, verdictOf } from './study';

describe('study statistics', () => {
  it('gives the Welch difference of means and its standard error', () => {
    const d = compare({ arm: 'a', values: [0.5, 0.6, 0.7] }, { arm: 'b', values: [0.2, 0.3] });
    expect(d?.diff).toBeCloseTo(0.6 - 0.25, 12);
    // se_a² = 0.01/3, se_b² = 0.005/2
    expect(d?.se).toBeCloseTo(Math.sqrt(0.01 / 3 + 0.005 / 2), 12);
    expect(d?.df).toBeGreaterThan(1);
    expect(d?.verdict.kind).toBe('a_better');
  });

  it("tests by Welch's t: with many degrees of freedom about two standard errors, with few far more", () => {
    // Textbook values of Student's t: t₀.₉₇₅ is 12.706 at 1 df, 4.303 at 2, 1.96 in the limit.
    expect(twoSidedP(12.706, 1)).toBeCloseTo(0.05, 4);
    expect(twoSidedP(4.303, 2)).toBeCloseTo(0.05, 4);
    expect(twoSidedP(1.96, 1e6)).toBeCloseTo(0.05, 4);
    expect(verdictOf('a', 'b', 0.019, 0.01, 1000).kind).toBe('no_difference');
    expect(verdictOf('a', 'b', 0.021, 0.01, 1000).kind).toBe('a_better');
    expect(verdictOf('a', 'b', -0.021, 0.01, 1000).kind).toBe('b_better');
    // a loss: lower is better
    expect(verdictOf('a', 'b', -0.021, 0.01, 1000, false).kind).toBe('a_better');
    expect(verdictOf('a', 'b', 0, 0, null).kind).toBe('no_difference');
    // Two seeds per arm (df ≈ 1.5): 3.1 standard errors is p ≈ 0.12, no verdict; 15 is one.
    const few = verdictOf('a', 'b', 0.031, 0.01, 1.5);
    expect(few.kind).toBe('no_difference');
    expect(few.text).toMatch(/t = 3\.1, df 1\.5, p = 0\.1\d/);
    expect(verdictOf('a', 'b', 0.15, 0.01, 1.5).kind).toBe('a_better');
    // Both arms without spread but apart: the difference is exact.
    expect(verdictOf('a', 'b', 0.1, 0, null).text).toBe('a better (no spread)');
  });

  it('gives no verdict without two seeds per arm', () => {
    const d = compare({ arm: 'a', values: [0.5] }, { arm: 'b', values: [0.2, 0.3] });
    expect(d?.se).toBeNull();
    expect(d?.verdict.kind).toBe('undecided');
    expect(compare({ arm: 'a', values: [] }, { arm: 'b', values: [1] })).toBeNull();
  });

  it('sizes the seeds for 80 % power in a two-sided 5 % t-test', () => {
    // sd 0.1 in both arms, effect 0.1 (Cohen's d = 1): 17 per arm, the textbook value (the normal
    // approximation says 16).
    expect(seedsNeeded(0.1, 0.1, 0.1)).toBe(17);
    expect(seedsNeeded(0.01, 0.01, 1)).toBe(2);
    expect(seedsNeeded(null, 0.1, 0.1)).toBeNull();
    expect(seedsNeeded(0.1, 0.1, 0)).toBeNull();
    // the inverse: 17 seeds detect 0.1, 16 a little more; one seed gives no standard error
    expect(detectableEffect(0.1, 0.1, 17)).toBeLessThanOrEqual(0.1);
    expect(detectableEffect(0.1, 0.1, 16)).toBeGreaterThan(0.1);
    expect(detectableEffect(0.1, 0.1, 1)).toBeNull();
    const p = power({ arm: 'a', values: [0, 0.2] }, { arm: 'b', values: [0.1, 0.3] }, 0.05, (x) => x.toFixed(2));
    expect(sampleSd([0, 0.2])).toBeCloseTo(Math.SQRT2 * 0.1, 12);
    // sd² = 0.02 per arm: the normal approximation's 126, one more for t
    expect(p.needed).toBe(Math.ceil((7.849 * 0.04) / 0.0025) + 1);
    expect(p.text).toContain('seeds per arm');
    // Every seed alike in both arms (a floor): no noise measured, no budget claimed.
    const flat = power({ arm: 'a', values: [0, 0] }, { arm: 'b', values: [0, 0] }, 0.05, (x) => x.toFixed(2));
    expect([flat.needed, flat.detectable]).toEqual([null, null]);
    expect(flat.text).toMatch(/no noise is measured/);
  });

  it('measures how far a set of arms is apart, with bootstrap standard errors', () => {
    const arms = [
      { arm: 'openai', values: [0.5, 0.52, 0.48] },
      { arm: 'vercel', values: [0.6, 0.62, 0.58] },
      { arm: 'fetch', values: [0.55, 0.57, 0.53] },
    ];
    const d = dispersion(arms);
    expect(d?.maxDiff.value).toBeCloseTo(0.1, 12);
    expect(d?.maxDiff.pair).toEqual(['openai', 'vercel']);
    expect(d?.mad.value).toBeCloseTo((0.05 + 0.05 + 0) / 3, 12);
    // each mean has se 0.01155; the max difference's se is about √2 of that
    expect(d?.maxDiff.se).toBeGreaterThan(0.01);
    expect(d?.maxDiff.se).toBeLessThan(0.025);
    expect(dispersion(arms)).toEqual(d); // seeded: deterministic
    // Means 5 SE apart are far beyond noise; identical means are at its floor.
    expect(d?.noise?.pMaxDiff).toBeLessThan(0.01);
    expect(d?.noise?.expectedMaxDiff).toBeGreaterThan(0.01);
    expect(d?.noise?.expectedMaxDiff).toBeLessThan(0.04);
    const same = dispersion(arms.map((a) => ({ arm: a.arm, values: [0.5, 0.52, 0.48] })));
    expect(same?.mad.value).toBe(0);
    expect(same?.noise?.pMad).toBe(1);
    expect(dispersion([arms[0]!])).toBeNull();
    expect(
      dispersion([
        { arm: 'a', values: [1] },
        { arm: 'b', values: [2] },
      ])?.mad.se,
    ).toBeNull();
  });
});
