import { describe, expect, it } from 'vitest';
import { stalenessFigures } from './rollout-health';

describe('stalenessFigures', () => {
  it('counts each output token at the version that sampled it, swaps included', () => {
    const calls = [
      { weightVersion: 3, outputIds: [1, 2, 3, 4] }, // 4 tokens at staleness 2
      { weightVersion: 4, outputIds: [1, 2, 3, 4, 5, 6], versionSpans: [[2, 5]] as [number, number][] },
    ];
    const f = stalenessFigures(calls, 5);
    expect(f.stalenessHistogram.slice(0, 3)).toEqual([4, 2, 4]);
    expect(f.stalenessMax).toBe(2);
    expect(f.stalenessMean).toBeCloseTo((4 * 2 + 2 * 1) / 10);
  });

  it('puts very stale tokens in the last bucket and reads 0 without tokens', () => {
    const f = stalenessFigures([{ weightVersion: 0, outputIds: [1] }], 40);
    expect(f.stalenessHistogram.at(-1)).toBe(1);
    expect(f.stalenessMax).toBe(40);
    expect(stalenessFigures([], 3).stalenessMean).toBe(0);
  });
});
