// Pure tests for the restart backoff: growth, cap, and reset after a long enough run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptAfterCrash, backoffDelayMs, defaultBackoff, type BackoffPolicy } from './backoff';

const policy: BackoffPolicy = { initialMs: 100, factor: 2, maxMs: 1000, resetAfterMs: 5000 };

describe('backoff', () => {
  it('doubles from the initial delay up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((a) => backoffDelayMs(a, policy))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('is monotonic and bounded for any attempt', () => {
    fc.assert(
      fc.property(fc.nat(10_000), (a) => {
        const d = backoffDelayMs(a, defaultBackoff);
        return d >= defaultBackoff.initialMs && d <= defaultBackoff.maxMs && backoffDelayMs(a + 1, defaultBackoff) >= d;
      }),
    );
  });

  it('starts over only after the client stayed up for resetAfterMs', () => {
    expect(attemptAfterCrash(4, 4999, policy)).toBe(4);
    expect(attemptAfterCrash(4, 5000, policy)).toBe(0);
    expect(attemptAfterCrash(0, 0, policy)).toBe(0);
  });
});
