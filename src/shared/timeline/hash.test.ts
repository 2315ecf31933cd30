// Tests of the prefix hashes that the chain builder uses to find candidate chains in O(1).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_HASH, extendHash, isPrefix, prefixHashes, prefixMayMatch, rangesEqual, stringSymbol } from './hash';

describe('prefix hashes', () => {
  it('a sequence hash matches exactly the prefixes it equals (no false negatives)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 ** 31 - 1 })), fc.array(fc.nat({ max: 5 })), (xs, tail) => {
        const prefixes = prefixHashes([...xs, ...tail]);
        expect(prefixMayMatch(prefixes, extendHash(EMPTY_HASH, xs))).toBe(true);
        expect(prefixMayMatch(prefixes, extendHash(EMPTY_HASH, [...xs, ...tail, 1]))).toBe(false);
      }),
    );
  });

  it('distinguishes nearby sequences', () => {
    const prefixes = prefixHashes([1, 2, 3, 4]);
    expect(prefixMayMatch(prefixes, extendHash(EMPTY_HASH, [1, 2, 4]))).toBe(false);
    expect(prefixMayMatch(prefixes, extendHash(EMPTY_HASH, [2, 1]))).toBe(false);
    expect(stringSymbol('ab')).not.toBe(stringSymbol('ba'));
    expect(stringSymbol('')).not.toBe(stringSymbol('\u0000'));
  });

  it('compares ranges and prefixes element by element', () => {
    expect(isPrefix([1, 2], [1, 2, 3])).toBe(true);
    expect(isPrefix([1, 3], [1, 2, 3])).toBe(false);
    expect(rangesEqual([9, 1, 2], 1, [1, 2, 7], 0, 2)).toBe(true);
    expect(rangesEqual([9, 1, 2], 1, [1, 2], 0, 3)).toBe(false);
  });
});
