import { describe, expect, it } from 'vitest';
import { compare, detectableEffect, dispersion, power, sampleSd, seedsNeeded, verdictOf } from './study';

describe('study statistics', () => {
  it('gives the Welch difference of means and its standard error', () => {
    const d = compare({ arm: 'a', values: [0.5, 0.6, 0.7] }, { arm: 'b', values: [0.2, 0.3] });
    expect(d?.diff).toBeCloseTo(0.6 - 0.25, 12);
    // se_a² = 0.01/3, se_b² = 0.005/2
    expect(d?.se).toBeCloseTo(Math.sqrt(0.01 / 3 + 0.005 / 2), 12);
    expect(d?.df).toBeGreaterThan(1);
    expect(d?.verdict.kind).toBe('a_better');
  });

  it('says no difference is detectable within two standard errors, and which arm wins outside', () => {
    expect(verdictOf('a', 'b', 0.019, 0.01).kind).toBe('no_difference');
    expect(verdictOf('a', 'b', 0.021, 0.01).kind).toBe('a_better');
    expect(verdictOf('a', 'b', -0.021, 0.01).kind).toBe('b_better');
    // a loss: lower is better
    expect(verdictOf('a', 'b', -0.021, 0.01, false).kind).toBe('a_better');
    expect(verdictOf('a', 'b', 0, 0).kind).toBe('no_difference');
  });

  it('gives no verdict without two seeds per arm', () => {
    const d = compare({ arm: 'a', values: [0.5] }, { arm: 'b', values: [0.2, 0.3] });
    expect(d?.se).toBeNull();
    expect(d?.verdict.kind).toBe('undecided');
    expect(compare({ arm: 'a', values: [] }, { arm: 'b', values: [1] })).toBeNull();
  });

  it('sizes the seeds for 80 % power at a two-sided 5 % level', () => {
    // sd 0.1 in both arms, effect 0.1: 7.85 × 0.02 / 0.01 = 15.7 → 16 per arm (the textbook value).
    expect(seedsNeeded(0.1, 0.1, 0.1)).toBe(16);
    expect(seedsNeeded(0.01, 0.01, 1)).toBe(2);
    expect(seedsNeeded(null, 0.1, 0.1)).toBeNull();
    expect(seedsNeeded(0.1, 0.1, 0)).toBeNull();
    // the inverse: 16 seeds detect 0.099
    expect(detectableEffect(0.1, 0.1, 16)).toBeCloseTo(0.099, 3);
    const p = power({ arm: 'a', values: [0, 0.2] }, { arm: 'b', values: [0.1, 0.3] }, 0.05, (x) => x.toFixed(2));
    expect(sampleSd([0, 0.2])).toBeCloseTo(Math.SQRT2 * 0.1, 12);
    expect(p.needed).toBe(Math.ceil((7.849 * 0.04) / 0.0025));
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
    expect(dispersion([arms[0]!])).toBeNull();
    expect(
      dispersion([
        { arm: 'a', values: [1] },
        { arm: 'b', values: [2] },
      ])?.mad.se,
    ).toBeNull();
  });
});
