// The train bench's framework comparison with its noise: standardisation by stratum, bootstrap SEs over
// whole task groups (or tasks, paired), permutation noise floors.
import { describe, expect, it } from 'vitest';
import { createPrng } from '../src/shared/prng';
import { frameworkNoise, noiseTable, type StratifiedEpisode } from './framework-noise';

let id = 0;
const ep = (framework: string, version: number, stratum: string, group: string, reward: number): StratifiedEpisode => ({
  episodeId: `e${id++}`,
  framework,
  clientId: framework,
  taskId: stratum,
  version,
  stratum,
  group,
  reward,
  success: reward === 1,
});

/** `n` groups of `size` episodes of framework f in a stratum, `ones` of all their episodes rewarded 1. */
const groups = (f: string, version: number, stratum: string, n: number, size: number, ones: number) =>
  Array.from({ length: n * size }, (_, i) =>
    ep(f, version, stratum, `${f}:${stratum}:${Math.floor(i / size)}`, i < ones ? 1 : 0),
  );

describe('frameworkNoise', () => {
  it('weights each framework by the stratum mix of all episodes, so drawing harder tasks is not a worse framework', () => {
    // Both frameworks solve 'easy' 80 % and 'hard' 20 % of the time; a drew mostly easy tasks, b mostly hard.
    const eps = [
      ...groups('a', 0, 'easy', 90, 1, 72),
      ...groups('a', 0, 'hard', 10, 1, 2),
      ...groups('b', 0, 'easy', 10, 1, 8),
      ...groups('b', 0, 'hard', 90, 1, 18),
    ];
    const n = frameworkNoise(eps, ['a', 'b'], [0, 1], { design: 'templates', draws: 100 });
    // Raw means would be 0.74 and 0.26; the standardised ones agree at the pooled mix (half each).
    expect(n.adjusted['a']![0]).toBeCloseTo(0.5);
    expect(n.adjusted['b']![0]).toBeCloseTo(0.5);
    expect(n.counts['a']).toEqual([100]);
    expect(n.height.diff).toBeCloseTo(0);
    expect(n.pairwiseMad.value).toBeCloseTo(0);
  });

  it('resamples whole task groups: correlated episodes count as one group, not as many episodes', () => {
    // 40 groups of 8 per framework; every group all 1 or all 0 (the task decides), half of each.
    const eps = [...groups('a', 0, 't', 40, 8, 160), ...groups('b', 0, 't', 40, 8, 160)];
    const n = frameworkNoise(eps, ['a', 'b'], [0, 1], { design: 'templates', draws: 1000 });
    // The SE of a mean of 40 independent 0/1 groups is 0.079 (episode-level it would be 0.028).
    expect(n.se['a']![0]).toBeGreaterThan(0.06);
    expect(n.se['a']![0]).toBeLessThan(0.1);
    expect(n.maxCellDiffSe).toBeGreaterThan(0.09);
    expect(n.height.se).toBeCloseTo(n.maxCellDiffSe, 2);
  });

  it('measures a real difference far above its noise floor, and equal frameworks at it', () => {
    const rng = createPrng(7);
    const play = (f: string, p: number): StratifiedEpisode[] =>
      Array.from({ length: 1600 }, (_, i) =>
        ep(f, i < 800 ? 0 : 1, i % 2 ? 'x' : 'y', `${f}:${Math.floor(i / 4)}`, rng.chance(p) ? 1 : 0),
      );
    const equal = frameworkNoise(
      [...play('a', 0.6), ...play('b', 0.6), ...play('c', 0.6)],
      ['a', 'b', 'c'],
      [0, 1, 2],
      {
        design: 'templates',
        draws: 300,
      },
    );
    expect(equal.pairwiseMad.value).toBeLessThan(equal.pairwiseMad.noise + 3 * equal.pairwiseMad.se);
    expect(equal.pairwiseMad.p).toBeGreaterThan(0.001);
    const apart = frameworkNoise(
      [...play('a', 0.6), ...play('b', 0.6), ...play('c', 0.4)],
      ['a', 'b', 'c'],
      [0, 1, 2],
      {
        design: 'templates',
        draws: 300,
      },
    );
    expect(apart.pairwiseMad.value).toBeGreaterThan(0.15);
    expect(apart.pairwiseMad.p).toBe(0);
    expect(apart.height.b).toBe('c');
    expect(apart.madVsAll.value).toBeGreaterThan(apart.madVsAll.noise + 3 * apart.madVsAll.se);
  });

  it('paired: compares frameworks on the tasks all of them played, so task difficulty cancels', () => {
    // 200 tasks, each played by a and b; a task's difficulty varies a lot, both frameworks see the same.
    const rng = createPrng(3);
    const eps: StratifiedEpisode[] = [];
    for (let t = 0; t < 200; t++) {
      const p = rng.next();
      for (const f of ['a', 'b'])
        for (let k = 0; k < 4; k++) eps.push(ep(f, 0, `task${t}`, `${f}:task${t}`, rng.chance(p) ? 1 : 0));
    }
    eps.push(ep('a', 0, 'only-a', 'a:only-a', 1)); // a task b never played: left out of both curves
    const paired = frameworkNoise(eps, ['a', 'b'], [0, 1], { design: 'paired', draws: 400 });
    expect(paired.counts['a']).toEqual([800]);
    const unpaired = frameworkNoise(
      eps.map((e) => ({ ...e, stratum: 'all' })),
      ['a', 'b'],
      [0, 1],
      { design: 'templates', draws: 400 },
    );
    // Pairing removes the tasks' spread from the difference's noise.
    expect(paired.height.se).toBeLessThan(0.7 * unpaired.height.se);
  });

  it('paired: a framework that plays each task later (after updates trained on it) is not read as better', () => {
    // No framework effect; success rises 2 pp for every version a group is played after the task's first.
    const rng = createPrng(5);
    const eps: StratifiedEpisode[] = [];
    const lag: Record<string, number> = { a: 0, b: 3, c: 6 };
    for (let t = 0; t < 400; t++) {
      const p = 0.2 + 0.5 * rng.next();
      for (const f of ['a', 'b', 'c']) {
        const v = 10 + lag[f]! + rng.int(0, 2);
        for (let k = 0; k < 8; k++)
          eps.push(ep(f, v, `task${t}`, `${f}:task${t}`, rng.chance(p + 0.02 * (v - 10)) ? 1 : 0));
      }
    }
    const n = frameworkNoise(eps, ['a', 'b', 'c'], [0, 100], { design: 'paired', draws: 200 });
    expect(n.exposureSlope[0]).toBeGreaterThan(0.01);
    expect(n.exposureSlope[0]).toBeLessThan(0.03);
    // Unadjusted, c would lead a by 12 pp; adjusted, the frameworks agree within noise.
    expect(Math.abs(n.height.diff)).toBeLessThan(3 * n.height.se + 0.01);
    expect(n.pairwiseMad.p).toBeGreaterThan(0.01);
  });

  it('lockstep: tasks played at the same weights by every framework are compared within task, no exposure fit', () => {
    // b is 10 pp better on every task; every framework plays each task at the same version.
    const rng = createPrng(8);
    const eps: StratifiedEpisode[] = [];
    for (let t = 0; t < 300; t++) {
      const p = 0.1 + 0.6 * rng.next();
      for (const f of ['a', 'b'])
        for (let k = 0; k < 8; k++)
          eps.push(ep(f, t, `task${t}`, `${f}:task${t}`, rng.chance(p + (f === 'b' ? 0.1 : 0)) ? 1 : 0));
    }
    const n = frameworkNoise(eps, ['a', 'b'], [0, 1000], { design: 'lockstep', draws: 200 });
    expect(n.exposureSlope).toEqual([null]);
    expect(n.height.diff).toBeLessThan(-0.1 + 3 * n.height.se);
    expect(n.height.diff).toBeGreaterThan(-0.1 - 3 * n.height.se);
    expect(n.height.se).toBeLessThan(0.02);
    expect(n.pairwiseMad.p).toBeLessThan(0.01);
  });

  it('bins by weight version and leaves out bins without a stratum every framework played', () => {
    const eps = [
      ...groups('a', 0, 't', 1, 4, 2),
      ...groups('a', 5, 't', 1, 4, 4),
      ...groups('b', 1, 't', 1, 4, 1),
      ...groups('c', 1, 't', 1, 4, 1),
    ];
    const n = frameworkNoise(eps, ['a', 'b', 'c'], [0, 3, 6], { design: 'templates', draws: 20 });
    expect(n.adjusted['a']).toEqual([0.5, null]);
    expect(n.adjusted['b']).toEqual([0.25, null]);
    expect(n.height).toMatchObject({ a: 'a', b: 'b' });
    expect(n.height.diff).toBeCloseTo(0.25);
    expect(noiseTable(n)).toContain('v3–5');
  });
});
