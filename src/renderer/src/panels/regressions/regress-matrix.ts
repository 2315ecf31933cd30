// The Regressions view (pure): the board's figures as a commits × figures table — one row per
// commit (newest first), one column per benchmark figure, each cell the commit's mean ± SE over
// seeds with its predecessors' band and flag (src/shared/regress.ts computes them).
import type { BoardFigure, BoardRow } from '../../../../shared/regress';

export interface MatrixColumn {
  key: string;
  bench: string;
  figure: string;
}

export interface MatrixRow {
  commit: string;
  commitDate: number;
  subject: string;
  cells: (BoardRow | null)[];
}

export function regressMatrix(figures: readonly BoardFigure[]): { columns: MatrixColumn[]; rows: MatrixRow[] } {
  const columns = figures.map((f) => ({ key: `${f.bench}/${f.figure}`, bench: f.bench, figure: f.figure }));
  const commits = new Map<string, { commitDate: number; subject: string }>();
  for (const f of figures)
    for (const r of f.rows) commits.set(r.commit, { commitDate: r.commitDate, subject: r.subject });
  const rows = [...commits.entries()]
    .sort((a, b) => b[1].commitDate - a[1].commitDate)
    .map(([commit, c]) => ({
      commit,
      ...c,
      cells: figures.map((f) => f.rows.find((r) => r.commit === commit) ?? null),
    }));
  return { columns, rows };
}

/** A number compactly (4 significant digits). */
export const fmtFigure = (x: number): string => (Number.isInteger(x) ? String(x) : Number(x.toPrecision(4)).toString());

export function cellText(r: BoardRow): string {
  return r.n > 1 ? `${fmtFigure(r.mean)} ± ${fmtFigure(r.se)}` : fmtFigure(r.mean);
}

export function cellTitle(r: BoardRow): string {
  const band = r.band ? `band of predecessors ${fmtFigure(r.band.lo)}…${fmtFigure(r.band.hi)}` : 'no band (too few)';
  const flag = r.flag ? `; flagged: ${r.flag} the band` : '';
  return `${r.n} seed${r.n === 1 ? '' : 's'}; ${band}${flag}`;
}
