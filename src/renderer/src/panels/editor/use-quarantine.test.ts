import { describe, expect, it } from 'vitest';
import { quarantineCounts } from './use-quarantine';

describe('quarantineCounts', () => {
  it('counts held episodes per version from the worker and marks (released ones too) from the store', () => {
    const counts = quarantineCounts({
      marks: [
        { codeVersion: 'a', releasedAt: null },
        { codeVersion: 'a', releasedAt: 5 },
        { codeVersion: 'b', releasedAt: null },
      ],
      held: [{ codeVersion: 'a', episodeIds: ['e1'] }],
    });
    expect(counts.get('a')).toEqual({ held: 1, marked: 2, released: 1 });
    expect(counts.get('b')).toEqual({ held: 0, marked: 1, released: 0 });
    expect(quarantineCounts({ marks: [], held: null }).size).toBe(0);
  });
});
