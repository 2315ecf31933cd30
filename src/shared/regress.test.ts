import { describe, expect, it } from 'vitest';
import type { RegressResult } from './inner-loop';
import { BoardFigureSchema, figureRows, regressBoard, standardError } from './regress';

const r = (commit: string, commitDate: number, value: number, seed = 0, figure = 'reward'): RegressResult => ({
  commit,
  commitDate,
  subject: `commit ${commit}`,
  bench: 'train',
  figure,
  seed,
  value,
  curve: null,
  machine: 'test',
  ranAt: 0,
});

describe('regression board', () => {
  it('computes the standard error of the mean', () => {
    expect(standardError([1])).toBe(0);
    expect(standardError([1, 3])).toBeCloseTo(1);
  });

  it('flags nothing until two predecessor values exist, then a commit outside the band', () => {
    const rows = figureRows([
      r('aaaaaaa', 1, 0.5),
      r('bbbbbbb', 2, 0.52),
      r('ccccccc', 3, 0.49),
      r('ddddddd', 4, 0.51),
      r('eeeeeee', 5, 0.2),
    ]);
    expect(rows.map((x) => x.flag)).toEqual([null, null, null, null, 'below']);
    expect(rows[0]!.band).toBeNull();
    expect(rows[4]!.band!.mean).toBeCloseTo(0.505);
  });

  it('lets seeds widen the test: a noisy commit inside the combined error is not flagged', () => {
    const base = [
      r('aaaaaaa', 1, 0.5, 0),
      r('aaaaaaa', 1, 0.52, 1),
      r('bbbbbbb', 2, 0.49, 0),
      r('bbbbbbb', 2, 0.51, 1),
    ];
    const noisy = [r('ccccccc', 3, 0.2, 0), r('ccccccc', 3, 0.8, 1)];
    expect(figureRows([...base, ...noisy]).at(-1)!.flag).toBeNull();
    const tight = [r('ccccccc', 3, 0.7, 0), r('ccccccc', 3, 0.71, 1)];
    expect(figureRows([...base, ...tight]).at(-1)!).toMatchObject({ flag: 'above', n: 2 });
  });

  it('uses only the last `window` commits as predecessors, and groups by bench and figure', () => {
    const old = [r('aaaaaaa', 1, 10), r('bbbbbbb', 2, 10)];
    const recent = [r('ccccccc', 3, 1), r('ddddddd', 4, 1.01), r('eeeeeee', 5, 1.005)];
    expect(figureRows([...old, ...recent], 2).at(-1)!.flag).toBeNull();
    const board = regressBoard([r('aaaaaaa', 1, 1, 0, 'b'), r('aaaaaaa', 1, 2, 0, 'a')]);
    expect(board.map((f) => f.figure)).toEqual(['a', 'b']);
    // What crosses to the renderer (`regressBoard`) parses with the board's schema, bands and flags included.
    const flagged = regressBoard([...old, ...recent]);
    expect(BoardFigureSchema.array().parse(flagged)).toEqual(flagged);
    expect(flagged[0]!.rows.some((row) => row.flag !== null && row.band !== null)).toBe(true);
  });
});
