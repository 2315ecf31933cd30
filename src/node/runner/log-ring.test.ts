// Pure tests for the bounded log ring.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LogRing } from './log-ring';

describe('LogRing', () => {
  it('keeps the last `capacity` items, oldest first, counting what it dropped', () => {
    const ring = new LogRing<number>(3);
    for (let i = 1; i <= 7; i++) ring.push(i);
    expect(ring.toArray()).toEqual([5, 6, 7]);
    expect(ring.size).toBe(3);
    expect(ring.droppedCount).toBe(4);
  });

  it('matches a plain array tail for any sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer(), { maxLength: 100 }), (cap, items) => {
        const ring = new LogRing<number>(cap);
        items.forEach((x) => ring.push(x));
        expect(ring.toArray()).toEqual(items.slice(-cap));
      }),
    );
  });

  it('rejects a non-positive capacity', () => {
    expect(() => new LogRing(0)).toThrow(RangeError);
  });
});
