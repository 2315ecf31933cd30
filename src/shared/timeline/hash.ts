// Polynomial prefix hashes over integer sequences (token ids, message hashes), two 32-bit hashes
// at once. They let the chain builder test "is A's sequence a prefix of B's?" in O(1) per open
// chain; every hash hit is then verified element by element, so collisions cost time, never
// correctness.

// Two polynomial hashes modulo 2^32 (Math.imul wraps), with different odd bases.
const B1 = 0x01000193;
const B2 = 0x5bd1e995;

/** The hash of one whole sequence. */
export interface SeqHash {
  readonly length: number;
  readonly h1: number;
  readonly h2: number;
}

/** Hashes of every prefix of a sequence: entry k hashes the first k elements. */
export interface PrefixHashes {
  readonly h1: Int32Array;
  readonly h2: Int32Array;
}

const step = (h: number, base: number, x: number): number => (Math.imul(h, base) + x) | 0;

export const EMPTY_HASH: SeqHash = { length: 0, h1: 0, h2: 0 };

/** Extends a sequence hash by more elements. */
export function extendHash(hash: SeqHash, xs: readonly number[]): SeqHash {
  let { h1, h2 } = hash;
  for (const x of xs) {
    h1 = step(h1, B1, x);
    h2 = step(h2, B2, x);
  }
  return { length: hash.length + xs.length, h1, h2 };
}

export function prefixHashes(xs: readonly number[]): PrefixHashes {
  const h1 = new Int32Array(xs.length + 1);
  const h2 = new Int32Array(xs.length + 1);
  let a = 0;
  let b = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] ?? 0;
    a = step(a, B1, x);
    b = step(b, B2, x);
    h1[i + 1] = a;
    h2[i + 1] = b;
  }
  return { h1, h2 };
}

/** True when the sequence hashed by `hash` may be the prefix of length `hash.length` of `prefixes`. */
export function prefixMayMatch(prefixes: PrefixHashes, hash: SeqHash): boolean {
  return (
    hash.length < prefixes.h1.length && prefixes.h1[hash.length] === hash.h1 && prefixes.h2[hash.length] === hash.h2
  );
}

/** Hashes a string to one 32-bit symbol for use in a sequence hash. */
export function stringSymbol(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = step(h, B2, text.charCodeAt(i));
  return step(h, B2, text.length);
}

/** True when `prefix` equals the first `prefix.length` elements of `xs`. */
export function isPrefix<T>(prefix: readonly T[], xs: readonly T[]): boolean {
  if (prefix.length > xs.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== xs[i]) return false;
  return true;
}

/** True when `a[aStart, aStart+length)` equals `b[bStart, bStart+length)`. */
export function rangesEqual<T>(
  a: readonly T[],
  aStart: number,
  b: readonly T[],
  bStart: number,
  length: number,
): boolean {
  if (aStart + length > a.length || bStart + length > b.length) return false;
  for (let i = 0; i < length; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}
