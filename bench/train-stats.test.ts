// The `train` bench's figures: framework curves binned by weight version and their MADs, binomial noise.
import { describe, expect, it } from 'vitest';
import { binomialSe, curvesTable, frameworkCurves, withinNoise, type EndedTrainEpisode } from './train-stats';

const ep = (framework: string, version: number, reward: number): EndedTrainEpisode => ({
  episodeId: `${framework}-${version}-${reward}-${Math.random()}`,
  framework,
  clientId: framework,
  taskId: 't',
  version,
  reward,
  success: reward === 1,
});

describe('frameworkCurves', () => {
  it('bins by weight version and measures each framework against the mean of the framework means', () => {
    // versions 0..3 in 2 bins: [0,2) and [2,4)
    const eps = [
      ep('a', 0, 0),
      ep('a', 1, 1),
      ep('a', 2, 1),
      ep('a', 3, 1),
      ep('b', 0, 0),
      ep('b', 1, 0),
      ep('b', 3, 1),
    ];
    const c = frameworkCurves(eps, ['a', 'b'], 2);
    expect(c.edges).toEqual([0, 2, 4]);
    expect(c.curves['a']).toEqual([0.5, 1]);
    expect(c.curves['b']).toEqual([0, 1]);
    expect(c.counts['a']).toEqual([2, 2]);
    expect(c.all).toEqual([0.25, 1]);
    expect(c.madVsAll['a']).toBeCloseTo(0.125);
    expect(c.madVsAll['b']).toBeCloseTo(0.125);
    expect(c.maxMadVsAll).toBeCloseTo(0.125);
    expect(c.maxPairwiseMad).toBeCloseTo(0.25);
    expect(curvesTable(c)).toContain('MAD vs all');
  });

  it('leaves empty bins out of the differences and never makes more bins than versions', () => {
    const c = frameworkCurves([ep('a', 0, 1), ep('b', 0, 1)], ['a', 'b', 'c'], 5);
    expect(c.edges).toEqual([0, 1]);
    expect(c.curves['c']).toEqual([null]);
    expect(c.maxMadVsAll).toBe(0);
  });
});

describe('binomial noise', () => {
  it('is sqrt(p(1-p)/n) and compares two rates within 2 standard errors', () => {
    expect(binomialSe(0.5, 100)).toBeCloseTo(0.05);
    expect(binomialSe(0.5, 0)).toBe(0);
    expect(withinNoise({ p: 0.5, n: 100 }, { p: 0.6, n: 100 })).toBe(true);
    expect(withinNoise({ p: 0.3, n: 100 }, { p: 0.6, n: 100 })).toBe(false);
  });
});
