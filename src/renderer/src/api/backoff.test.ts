import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  const opts = { baseMs: 100, maxMs: 2000 };
  it('grows exponentially within [exp/2, exp]', () => {
    expect(backoffDelay(0, 0, opts)).toBe(50);
    expect(backoffDelay(0, 1, opts)).toBe(100);
    expect(backoffDelay(1, 0, opts)).toBe(100);
    expect(backoffDelay(3, 1, opts)).toBe(800);
  });
  it('is capped at maxMs however many attempts failed', () => {
    expect(backoffDelay(10, 1, opts)).toBe(2000);
    expect(backoffDelay(1000, 0.5, opts)).toBe(1500);
  });
  it('clamps odd inputs', () => {
    expect(backoffDelay(-3, 2, opts)).toBe(100);
    expect(backoffDelay(0, -1, opts)).toBe(50);
  });
});
