// Tests for the seeded PRNG: determinism, ranges, uniformity, shuffle permutations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPrng, deriveSeed, fnv1a, pickWeighted } from './prng';

describe('createPrng', () => {
  it('gives equal sequences for equal seeds and different ones for different seeds', () => {
    const a = createPrng(42);
    const b = createPrng(42);
    const c = createPrng(43);
    const sa = Array.from({ length: 20 }, () => a.next());
    const sb = Array.from({ length: 20 }, () => b.next());
    const sc = Array.from({ length: 20 }, () => c.next());
    expect(sa).toEqual(sb);
    expect(sa).not.toEqual(sc);
  });

  it('keeps next() in [0, 1) and int() within inclusive bounds', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: -50, max: 50 }),
        fc.integer({ min: 0, max: 50 }),
        (seed, lo, span) => {
          const r = createPrng(seed);
          for (let i = 0; i < 50; i++) {
            const x = r.next();
            expect(x).toBeGreaterThanOrEqual(0);
            expect(x).toBeLessThan(1);
            const n = r.int(lo, lo + span);
            expect(Number.isInteger(n)).toBe(true);
            expect(n).toBeGreaterThanOrEqual(lo);
            expect(n).toBeLessThanOrEqual(lo + span);
          }
        },
      ),
    );
  });

  it('hits every value of a small int range roughly uniformly', () => {
    const r = createPrng(7);
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 60_000; i++) counts[r.int(0, 5)]! += 1;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });

  it('float() respects its range', () => {
    const r = createPrng(1);
    for (let i = 0; i < 1000; i++) {
      const x = r.float(2, 5);
      expect(x).toBeGreaterThanOrEqual(2);
      expect(x).toBeLessThan(5);
    }
  });

  it('shuffle() returns a permutation and leaves the input alone', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.integer()), (seed, xs) => {
        const before = [...xs];
        const out = createPrng(seed).shuffle(xs);
        expect(xs).toEqual(before);
        expect([...out].sort((p, q) => p - q)).toEqual([...xs].sort((p, q) => p - q));
      }),
    );
  });

  it('pick() returns a member and refuses an empty array', () => {
    const r = createPrng(3);
    const items = ['a', 'b', 'c'];
    for (let i = 0; i < 100; i++) expect(items).toContain(r.pick(items));
    expect(() => r.pick([])).toThrow(RangeError);
    expect(() => r.int(3, 2)).toThrow(RangeError);
  });

  it('chance() matches its probability', () => {
    const r = createPrng(11);
    let hits = 0;
    for (let i = 0; i < 20_000; i++) if (r.chance(0.3)) hits++;
    expect(hits / 20_000).toBeCloseTo(0.3, 1);
  });

  it('fork() is deterministic and independent of the label-free stream', () => {
    const f1 = createPrng(5).fork('x');
    const f2 = createPrng(5).fork('x');
    const f3 = createPrng(5).fork('y');
    expect(f1.next()).toBe(f2.next());
    expect(f1.next()).not.toBe(f3.next());
  });
});

describe('fnv1a / deriveSeed', () => {
  it('matches the FNV-1a reference values', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });
  it('derives distinct stable seeds per label', () => {
    expect(deriveSeed(1, 'a')).toBe(deriveSeed(1, 'a'));
    expect(deriveSeed(1, 'a')).not.toBe(deriveSeed(1, 'b'));
    expect(deriveSeed(1, 'a')).not.toBe(deriveSeed(2, 'a'));
  });
});

describe('pickWeighted', () => {
  it('follows the weights', () => {
    const r = createPrng(9);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 30_000; i++)
      counts[
        pickWeighted(r, [
          ['a', 0.5],
          ['b', 0.3],
          ['c', 0.2],
        ] as const)
      ]++;
    expect(counts.a / 30_000).toBeCloseTo(0.5, 1);
    expect(counts.b / 30_000).toBeCloseTo(0.3, 1);
    expect(counts.c / 30_000).toBeCloseTo(0.2, 1);
    expect(() => pickWeighted(r, [])).toThrow(RangeError);
  });
});
