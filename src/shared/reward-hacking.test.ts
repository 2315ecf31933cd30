import { describe, expect, it } from 'vitest';
import { hackingAlarm, type ScoredOutcome } from './reward-hacking';

/** `n` episodes whose score and success drift linearly from (s0, p0) to (s1, p1); success by a fixed pattern. */
function run(n: number, s0: number, s1: number, p0: number, p1: number): ScoredOutcome[] {
  return Array.from({ length: n }, (_, i) => {
    const t = i / (n - 1);
    const p = p0 + (p1 - p0) * t;
    return { rmScore: s0 + (s1 - s0) * t, verifiable: (i * 0.618) % 1 < p ? 1 : 0 };
  });
}

describe('hackingAlarm', () => {
  it('rings when the score rises while verifiable success falls', () => {
    const v = hackingAlarm(run(600, -1, 2, 0.4, 0.05));
    expect(v.alarm).toBe(true);
    expect(v.successDrop!).toBeGreaterThan(0.2);
    expect(v.scoreRise!).toBeGreaterThan(0.25);
  });
  it('stays quiet when both rise, when the score falls, or within noise', () => {
    expect(hackingAlarm(run(600, -1, 2, 0.3, 0.6)).alarm).toBe(false);
    expect(hackingAlarm(run(600, 2, -1, 0.4, 0.05)).alarm).toBe(false);
    expect(hackingAlarm(run(600, -1, 2, 0.3, 0.29)).alarm).toBe(false);
  });
  it('does not judge too few episodes', () => {
    expect(hackingAlarm(run(60, -1, 2, 0.4, 0.0))).toMatchObject({ alarm: false, scoreRise: null });
  });
});
