import { describe, expect, it } from 'vitest';
import { BusyClock, fraction } from './busy-clock';

describe('BusyClock', () => {
  it('adds up the time the condition held between reads, open intervals included', () => {
    const c = new BusyClock(0);
    c.set(true, 10);
    c.set(true, 15); // already on: no change
    c.set(false, 30);
    c.set(true, 90);
    expect(c.take(100)).toEqual({ heldMs: 30, wallMs: 100 });
    expect(c.on).toBe(true);
    c.set(false, 150);
    expect(fraction(c.take(200))).toBe(0.5);
  });

  it('reads 0 for an empty window', () => {
    const c = new BusyClock(5);
    expect(fraction(c.take(5))).toBe(0);
  });
});
