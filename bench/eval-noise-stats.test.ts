import { describe, expect, it } from 'vitest';
import { pairedGain, repeatNoise, sampleSd } from './eval-noise-stats';

describe('eval noise figures', () => {
  it('a fixed task set whose tasks always or never succeed has no run-to-run noise, whatever the binomial SE', () => {
    const fixed = [true, true, false, false];
    const r = repeatNoise([fixed, fixed, fixed]);
    expect(r.rates).toEqual([0.5, 0.5, 0.5]);
    expect(r.sdAcross).toBe(0);
    expect(r.withinTaskSe).toBe(0);
    expect(r.binomialSe).toBeCloseTo(0.25, 10);
    expect([r.always, r.never, r.mixed]).toEqual([2, 2, 0]);
  });

  it('tasks that succeed half the time carry the whole binomial noise within the task set', () => {
    const r = repeatNoise([
      [true, false],
      [false, true],
    ]);
    // p̂_i = 0.5 each, s_i² = 2·0.25 = 0.5, √(1)/2 = 0.5
    expect(r.withinTaskSe).toBeCloseTo(0.5, 10);
    expect(r.mixed).toBe(2);
    expect(sampleSd([1, 3])).toBeCloseTo(Math.SQRT2, 10);
    expect(() => repeatNoise([[true], [true, false]])).toThrow(/same/);
  });

  it('pairs a gain task by task: correlated outcomes give a smaller SE than independent samples', () => {
    const before = [true, true, false, false, false, false, false, false];
    const after = [true, true, true, true, false, false, false, false];
    const g = pairedGain(before, after);
    expect(g.gain).toBeCloseTo(0.25, 10);
    expect(g.pairedSe).toBeLessThan(g.independentSe);
    expect(() => pairedGain([true], [])).toThrow(/same/);
  });
});
