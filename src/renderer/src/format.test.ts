import { describe, expect, it } from 'vitest';
import { activityText, clockTime, percent, relativeTime } from './format';

describe('format', () => {
  it('relative times', () => {
    const now = 10_000_000;
    expect(relativeTime(now, null)).toBe('—');
    expect(relativeTime(now, now - 500)).toBe('just now');
    expect(relativeTime(now, now + 5000)).toBe('just now');
    expect(relativeTime(now, now - 12_000)).toBe('12s ago');
    expect(relativeTime(now, now - 5 * 60_000)).toBe('5m ago');
    expect(relativeTime(now, now - 3 * 3_600_000)).toBe('3h ago');
    expect(relativeTime(now, now - 2 * 86_400_000)).toBe('2d ago');
  });
  it('activity text', () => {
    expect(activityText({ phase: 'loading_model', detail: 'builtin', fraction: 0.42 })).toBe(
      'Loading model — builtin 42%',
    );
    expect(activityText({ phase: 'starting_clients', detail: '', fraction: null })).toBe('Starting clients');
  });
  it('clock time is 24-hour with seconds', () => {
    expect(clockTime(new Date(2026, 0, 2, 15, 4, 9).getTime())).toBe('15:04:09');
  });
  it('percent', () => {
    expect(percent(0.256)).toBe('26%');
    expect(percent(null)).toBe('—');
  });
});
