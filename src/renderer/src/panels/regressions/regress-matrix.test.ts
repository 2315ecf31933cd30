import { describe, expect, it } from 'vitest';
import type { BoardRow } from '../../../../shared/regress';
import { cellText, cellTitle, regressMatrix } from './regress-matrix';

const row = (commit: string, commitDate: number, mean: number, extra: Partial<BoardRow> = {}): BoardRow => ({
  commit,
  commitDate,
  subject: `s ${commit}`,
  n: 1,
  mean,
  se: 0,
  band: null,
  flag: null,
  ...extra,
});

describe('regressMatrix', () => {
  it('lays the figures out as commits (newest first) × figures, empty where a figure was not run', () => {
    const m = regressMatrix([
      { bench: 'merge', figure: 'ratio', rows: [row('aaa1111', 1, 2), row('bbb2222', 2, 3)] },
      { bench: 'train', figure: 'reward', rows: [row('bbb2222', 2, 0.5)] },
    ]);
    expect(m.columns.map((c) => c.key)).toEqual(['merge/ratio', 'train/reward']);
    expect(m.rows.map((r) => r.commit)).toEqual(['bbb2222', 'aaa1111']);
    expect(m.rows[1]!.cells[1]).toBeNull();
    expect(m.rows[0]!.cells[1]!.mean).toBe(0.5);
  });

  it('shows mean ± SE over seeds, and the band and flag on hover', () => {
    const r = row('c', 3, 1.23456, { n: 3, se: 0.1, band: { lo: 0.5, hi: 0.7, mean: 0.6 }, flag: 'above' });
    expect(cellText(r)).toBe('1.235 ± 0.1');
    expect(cellTitle(r)).toBe('3 seeds; band of predecessors 0.5…0.7; flagged: above the band');
    expect(cellTitle(row('d', 1, 2))).toBe('1 seed; no band (too few)');
  });
});
