// Small seeded pseudo-random generator (mulberry32) for pure cores: datasets, transcripts, tests.
// Randomness enters pure code only through a `Prng` passed in, never through Math.random.

export interface Prng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform float in [lo, hi). */
  float(lo?: number, hi?: number): number;
  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A uniformly chosen element; throws on an empty array. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates); the input is left alone. */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent generator derived from this one's next output and a label. */
  fork(label: string): Prng;
}

/** FNV-1a 32-bit hash of a string: stable seeds and buckets from ids. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Combines a numeric seed and a label into one 32-bit seed. */
export function deriveSeed(seed: number, label: string): number {
  return fnv1a(`${seed >>> 0}:${label}`);
}

/** A mulberry32 generator; equal seeds give equal sequences. */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => {
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo) {
      throw new RangeError(`int(${lo}, ${hi}): bounds must be integers with lo <= hi`);
    }
    return lo + Math.floor(next() * (hi - lo + 1));
  };
  return {
    next,
    float: (lo = 0, hi = 1) => lo + next() * (hi - lo),
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick: empty array');
      return items[int(0, items.length - 1)]!;
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        const tmp = out[i]!;
        out[i] = out[j]!;
        out[j] = tmp;
      }
      return out;
    },
    fork: (label) => createPrng(fnv1a(`${Math.floor(next() * 4294967296)}:${label}`)),
  };
}

/** Draws an item from `[item, weight]` pairs (weights need not sum to 1). */
export function pickWeighted<T>(r: Prng, mix: readonly (readonly [T, number])[]): T {
  if (mix.length === 0) throw new RangeError('pickWeighted: empty mix');
  const total = mix.reduce((s, [, w]) => s + w, 0);
  let x = r.float(0, total);
  for (const [item, w] of mix) {
    if (x < w) return item;
    x -= w;
  }
  return mix.at(-1)![0];
}
