// The cocktail mix: AGENTJET_MIX parsing and the seeded per-task choice hitting the requested share.
import { describe, expect, it } from 'vitest';
import { createPrng } from '../../../src/shared/prng';
import { parseMix, pickMixed } from './mix';

describe('cocktail mix', () => {
  it('parses AGENTJET_MIX with a 0.5 default and refuses values outside [0, 1]', () => {
    expect(parseMix(undefined)).toBe(0.5);
    expect(parseMix('0.25')).toBe(0.25);
    expect(() => parseMix('1.5')).toThrow(/AGENTJET_MIX/);
    expect(() => parseMix('abc')).toThrow(/AGENTJET_MIX/);
  });

  it('picks calculator tasks at about the mix share, deterministically per seed', () => {
    const draw = (seed: number, mix: number): string[] => {
      const rng = createPrng(seed);
      return Array.from({ length: 2000 }, () => pickMixed(rng, mix, ['c'], ['g']));
    };
    const share = draw(7, 0.3).filter((x) => x === 'c').length / 2000;
    expect(share).toBeGreaterThan(0.26);
    expect(share).toBeLessThan(0.34);
    expect(draw(7, 0.3)).toEqual(draw(7, 0.3));
    expect(draw(1, 0).every((x) => x === 'g')).toBe(true);
    expect(draw(1, 1).every((x) => x === 'c')).toBe(true);
  });
});
