import { describe, expect, it } from 'vitest';
import { probeRows } from './probe-series';

describe('probeRows', () => {
  it('gives each weight version a row with every probe hit rate there (latest point wins)', () => {
    const rows = probeRows([
      {
        id: 1,
        name: 'a',
        points: [
          { weightVersion: 2, at: 5, k: 4, hits: 1 },
          { weightVersion: 0, at: 1, k: 4, hits: 4 },
          { weightVersion: 2, at: 3, k: 4, hits: 0 },
        ],
      },
      { id: 2, name: 'b', points: [{ weightVersion: 1, at: 2, k: 2, hits: 1 }] },
    ]);
    expect(rows).toEqual([
      { weightVersion: 0, p1: 1 },
      { weightVersion: 1, p2: 0.5 },
      { weightVersion: 2, p1: 0.25 },
    ]);
  });
});
