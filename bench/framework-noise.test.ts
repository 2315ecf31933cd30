// The train bench's framework comparison with its noise: template standardisation, cell SEs, the
// bootstrap SEs and noise floors of the MADs.
import { describe, expect, it } from 'vitest';
import { createPrng } from '../src/shared/prng';
import { frameworkNoise, noiseTable, type StratifiedEpisode } from './framework-noise';

let id = 0;
const ep = (framework: string, version: number, stratum: string, reward: number): StratifiedEpisode => ({
  episodeId: `e${id++}`,
  framework,
  taskId: 't',
  version,
  stratum,
  reward,
  success: reward === 1,
});

const many = (framework: string, version: number, stratum: string, n: number, ones: number): StratifiedEpisode[] =>
  Array.from({ length: n }, (_, i) => ep(framework, version, stratum, i < ones ? 1 : 0));

describe('frameworkNoise', () => {
  it('weights each framework by the template mix of all episodes, so drawing harder templates is not a worse framework', () => {
    // Both frameworks solve 'easy' 80 % and 'hard' 20 % of the time; a drew mostly easy tasks, b mostly hard.
    const eps = [
      ...many('a', 0, 'easy', 90, 72),
      ...many('a', 0, 'hard', 10, 2),
      ...many('b', 0, 'easy', 10, 8),
      ...many('b', 0, 'hard', 90, 18),
    ];
    const n = frameworkNoise(eps, ['a', 'b'], [0, 1], 200);
    // Raw means would be 0.74 and 0.26; the standardised ones agree at the pooled mix (half each).
    expect(n.adjusted['a']![0]).toBeCloseTo(0.5);
    expect(n.adjusted['b']![0]).toBeCloseTo(0.5);
    expect(n.height.diff).toBeCloseTo(0);
    expect(n.pairwiseMad.value).toBeCloseTo(0);
  });

  it('gives each cell the SE of its stratified mean and each difference the SE of the two', () => {
    const eps = [...many('a', 0, 't', 100, 50), ...many('b', 0, 't', 100, 30)];
    const n = frameworkNoise(eps, ['a', 'b'], [0, 1], 200);
    const seA = Math.sqrt((0.25 * (100 / 99)) / 100);
    const seB = Math.sqrt((0.21 * (100 / 99)) / 100);
    expect(n.se['a']![0]).toBeCloseTo(seA, 6);
    expect(n.se['b']![0]).toBeCloseTo(seB, 6);
    expect(n.maxCellDiffSe).toBeCloseTo(Math.hypot(seA, seB), 6);
    expect(n.height).toMatchObject({ a: 'a', b: 'b' });
    expect(n.height.diff).toBeCloseTo(0.2);
    expect(n.height.se).toBeCloseTo(Math.hypot(seA, seB), 6);
    expect(n.pairwiseMad.value).toBeCloseTo(0.2);
    // Far above its noise floor: |N(0, σ)| has mean σ·√(2/π).
    expect(n.pairwiseMad.noise).toBeCloseTo(Math.hypot(seA, seB) * Math.sqrt(2 / Math.PI), 2);
    expect(n.pairwiseMad.se).toBeGreaterThan(0.5 * Math.hypot(seA, seB));
    expect(n.pairwiseMad.se).toBeLessThan(1.5 * Math.hypot(seA, seB));
  });

  it('bins by weight version and leaves out frameworks and bins with no episodes', () => {
    const eps = [...many('a', 0, 't', 4, 2), ...many('a', 5, 't', 4, 4), ...many('b', 1, 't', 4, 1)];
    const n = frameworkNoise(eps, ['a', 'b', 'c'], [0, 3, 6], 50);
    expect(n.adjusted['a']).toEqual([0.5, 1]);
    expect(n.adjusted['b']).toEqual([0.25, null]);
    expect(n.adjusted['c']).toEqual([null, null]);
    expect(n.height).toMatchObject({ a: 'a', b: 'b' });
    expect(n.height.diff).toBeCloseTo(0.25);
    expect(noiseTable(n)).toContain('v3–5');
  });

  it('reads equal frameworks as noise: the measured MAD sits near its noise floor', () => {
    // Five frameworks drawn from one policy (60 %), 400 episodes per bin each, in 2 bins.
    const rng = createPrng(7);
    const eps: StratifiedEpisode[] = [];
    for (const f of ['a', 'b', 'c', 'd', 'e'])
      for (let i = 0; i < 800; i++) eps.push(ep(f, i < 400 ? 0 : 1, i % 2 ? 'x' : 'y', rng.chance(0.6) ? 1 : 0));
    const n = frameworkNoise(eps, ['a', 'b', 'c', 'd', 'e'], [0, 1, 2], 500);
    expect(n.maxCellDiffSe).toBeLessThan(0.04);
    expect(n.madVsAll.value).toBeLessThan(n.madVsAll.noise + 3 * n.madVsAll.se);
    expect(n.pairwiseMad.value).toBeLessThan(n.pairwiseMad.noise + 3 * n.pairwiseMad.se);
    expect(n.pairwiseMad.noise).toBeGreaterThan(n.madVsAll.noise);
  });
});
