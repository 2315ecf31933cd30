// The one backoff: growth, caps, jitter range, odd inputs, and the reset after a long enough run
// (the cases of the runner's, the SDK's and the bridge socket's former copies).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptAfterCrash, backoffDelay, type BackoffPolicy } from './backoff';

const restart: BackoffPolicy = { initialMs: 100, factor: 2, maxMs: 1000, resetAfterMs: 5000 };
const runnerDefault: BackoffPolicy = { initialMs: 250, factor: 2, maxMs: 10_000, resetAfterMs: 10_000 };
/** The bridge socket's reconnects: full delay in the upper half of its window. */
const socket: BackoffPolicy = { initialMs: 100, maxMs: 2000, jitter: [0.5, 1] };

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((a) => backoffDelay(a, restart))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('is monotonic and bounded for any attempt', () => {
    fc.assert(
      fc.property(fc.nat(10_000), (a) => {
        const d = backoffDelay(a, runnerDefault);
        return d >= runnerDefault.initialMs && d <= runnerDefault.maxMs && backoffDelay(a + 1, runnerDefault) >= d;
      }),
    );
  });

  it('jitters within [lo, hi] of the capped delay', () => {
    expect(backoffDelay(0, socket, 0)).toBe(50);
    expect(backoffDelay(0, socket, 1)).toBe(100);
    expect(backoffDelay(1, socket, 0)).toBe(100);
    expect(backoffDelay(3, socket, 1)).toBe(800);
    expect(backoffDelay(10, socket, 1)).toBe(2000);
    expect(backoffDelay(1000, socket, 0.5)).toBe(1500);
  });

  it('clamps odd inputs', () => {
    expect(backoffDelay(-3, socket, 2)).toBe(100);
    expect(backoffDelay(0, socket, -1)).toBe(50);
    expect(backoffDelay(Number.NaN, restart)).toBe(100);
    expect(backoffDelay(3, { initialMs: 100, maxMs: Infinity, maxExponent: 2 })).toBe(400);
  });
});

describe('attemptAfterCrash', () => {
  it('starts over only after the process stayed up for resetAfterMs', () => {
    expect(attemptAfterCrash(4, 4999, restart)).toBe(4);
    expect(attemptAfterCrash(4, 5000, restart)).toBe(0);
    expect(attemptAfterCrash(0, 0, restart)).toBe(0);
    expect(attemptAfterCrash(4, 1e9, { initialMs: 1, maxMs: 1 })).toBe(4);
  });
});
