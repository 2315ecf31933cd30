import { describe, expect, it } from 'vitest';
import { parseFingerprint } from './tls-fingerprint';

const CANONICAL = Array.from({ length: 32 }, (_, i) => (i * 7 + 10).toString(16).toUpperCase().padStart(2, '0')).join(
  ':',
);

describe('parseFingerprint', () => {
  it('reads what people paste into the canonical AB:CD:… form', () => {
    expect(parseFingerprint(CANONICAL)).toBe(CANONICAL);
    expect(parseFingerprint(CANONICAL.toLowerCase())).toBe(CANONICAL);
    expect(parseFingerprint(CANONICAL.replace(/:/g, ''))).toBe(CANONICAL);
    expect(parseFingerprint(` SHA256 Fingerprint=${CANONICAL} `)).toBe(CANONICAL);
    expect(parseFingerprint(CANONICAL.replace(/:/g, ' '))).toBe(CANONICAL);
  });
  it('refuses anything that is not 32 hex byte pairs', () => {
    expect(parseFingerprint(CANONICAL.slice(3))).toBeNull();
    expect(parseFingerprint(`${CANONICAL}:00`)).toBeNull();
    expect(parseFingerprint(CANONICAL.replace('0', 'g'))).toBeNull();
    expect(parseFingerprint('')).toBeNull();
  });
});
