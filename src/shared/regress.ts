// The regression board's arithmetic (pure; docs/inner-loop.md#regression-board): per benchmark
// figure, each commit's mean and standard error over its seeds, the band of its predecessors
// (the pooled seed values of up to `window` earlier commits: mean ± 2 standard errors), and a
// flag when the commit's mean differs from the predecessors' by more than 2 combined standard
// errors — sqrt(SE_pred² + SE_commit²) — so a noisy figure needs a larger move to be flagged
// and a deterministic one is flagged on any change. With fewer than two predecessor values
// nothing is flagged.
import { z } from 'zod';
import type { RegressResult } from './inner-loop';

export interface BoardRow {
  commit: string;
  commitDate: number;
  subject: string;
  n: number;
  mean: number;
  /** Standard error of the mean over the commit's seeds (0 with one seed). */
  se: number;
  /** The predecessors' band, or null when they are too few (< 2 values). */
  band: { lo: number; hi: number; mean: number } | null;
  flag: 'above' | 'below' | null;
}

export interface BoardFigure {
  bench: string;
  figure: string;
  rows: BoardRow[];
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Standard error of the mean (sample standard deviation / √n); 0 for fewer than two values. */
export function standardError(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1) / xs.length);
}

/** Rows in commit-date order (results of one commit grouped by commit). */
export function figureRows(results: readonly RegressResult[], window = 5): BoardRow[] {
  const byCommit = new Map<string, { commitDate: number; subject: string; values: number[] }>();
  for (const r of results) {
    const c = byCommit.get(r.commit) ?? { commitDate: r.commitDate, subject: r.subject, values: [] };
    c.values.push(r.value);
    byCommit.set(r.commit, c);
  }
  const commits = [...byCommit.entries()].sort((a, b) => a[1].commitDate - b[1].commitDate);
  return commits.map(([commit, c], i): BoardRow => {
    const row = {
      commit,
      commitDate: c.commitDate,
      subject: c.subject,
      n: c.values.length,
      mean: mean(c.values),
      se: standardError(c.values),
    };
    const pred = commits.slice(Math.max(0, i - window), i).flatMap(([, p]) => p.values);
    if (pred.length < 2) return { ...row, band: null, flag: null };
    const pm = mean(pred);
    const pse = standardError(pred);
    const limit = 2 * Math.sqrt(pse ** 2 + row.se ** 2);
    const flag = Math.abs(row.mean - pm) <= limit + 1e-12 ? null : row.mean > pm ? 'above' : 'below';
    return { ...row, band: { lo: pm - 2 * pse, hi: pm + 2 * pse, mean: pm }, flag };
  });
}

/** Every (bench, figure) of the results with its rows. */
export function regressBoard(results: readonly RegressResult[], window = 5): BoardFigure[] {
  const groups = new Map<string, RegressResult[]>();
  for (const r of results) {
    const key = `${r.bench}\u0000${r.figure}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, rs]) => {
      const [bench, figure] = key.split('\u0000') as [string, string];
      return { bench, figure, rows: figureRows(rs, window) };
    });
}

const BandSchema = z.object({ lo: z.number(), hi: z.number(), mean: z.number() });

/** A board figure as it crosses to the renderer (`regressBoard`). */
export const BoardFigureSchema = z.object({
  bench: z.string(),
  figure: z.string(),
  rows: z.array(
    z.object({
      commit: z.string(),
      commitDate: z.number(),
      subject: z.string(),
      n: z.number().int(),
      mean: z.number(),
      se: z.number(),
      band: BandSchema.nullable(),
      flag: z.enum(['above', 'below']).nullable(),
    }),
  ),
});
