// `agentjet regress run|show`: the regression board across commits (src/node/regress,
// src/shared/regress.ts; docs/inner-loop.md#regression-board).
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { regressBoard, type BoardFigure } from '../shared/regress';
import { regressRun, resolveCommits } from '../node/regress/regress-run';
import { openStore } from '../node/store/store';
import { parseFlags } from './flags';
import { resolveDataDir } from './ui';

export const regressHelp = `  agentjet regress run [--commits A..B | --last N] [--bench train,merge,…] [--seeds 0,1]
                           [--smoke true] [--timeout-min M] [--repo DIR] [--data-dir D]
                           run benchmarks at each commit in a scratch git worktree; store every figure
  agentjet regress show [--bench B] [--window W] [--json true] [--data-dir D]
                           each figure by commit: mean ± SE over seeds, the predecessors' band, flags`;

const Bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const List = (item: z.ZodType<string>) => z.string().transform((s) => s.split(',').map((x) => item.parse(x.trim())));

const RunOptions = z
  .object({
    commits: z
      .string()
      .regex(/^[\w./~^-]+\.\.[\w./~^-]+$/, 'A..B')
      .optional(),
    last: z.coerce.number().int().min(1).max(100).optional(),
    bench: List(z.string().regex(/^[a-z-]+$/)).default(['train', 'merge']),
    seeds: z
      .string()
      .transform((s) => s.split(',').map((x) => z.coerce.number().int().parse(x)))
      .default([0]),
    smoke: Bool.default(false),
    timeoutMin: z.coerce
      .number()
      .positive()
      .max(24 * 60)
      .default(60),
    repo: z.string().min(1).default('.'),
    dataDir: z.string().min(1).optional(),
  })
  .strict();
const ShowOptions = z
  .object({
    bench: z.string().min(1).optional(),
    window: z.coerce.number().int().min(1).max(100).default(5),
    json: Bool.default(false),
    dataDir: z.string().min(1).optional(),
  })
  .strict();

const fmt = (x: number): string => (Math.abs(x) >= 1000 || x === 0 ? x.toFixed(0) : x.toPrecision(4));

/** A Markdown table per figure: commit, subject, n, mean ± SE, band, flag. */
export function boardTable(board: readonly BoardFigure[]): string {
  const out: string[] = [];
  for (const f of board) {
    out.push(
      `### ${f.bench}: ${f.figure}`,
      '',
      '| commit | subject | n | mean ± SE | band | flag |',
      '|---|---|---|---|---|---|',
    );
    for (const r of f.rows) {
      const band = r.band ? `${fmt(r.band.lo)} … ${fmt(r.band.hi)}` : '—';
      out.push(
        `| ${r.commit.slice(0, 9)} | ${r.subject.slice(0, 60).replace(/\|/g, '/')} | ${r.n} | ` +
          `${fmt(r.mean)} ± ${fmt(r.se)} | ${band} | ${r.flag ?? ''} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

export async function runRegress(args: string[], out: (text: string) => void = console.log): Promise<number> {
  const [sub, ...flags] = args;
  if (sub === 'run') {
    const o = RunOptions.parse(parseFlags(flags));
    if (o.commits && o.last) throw new Error('give --commits or --last, not both');
    const dir = resolveDataDir(o.dataDir);
    const repo = resolve(o.repo);
    const store = openStore(join(dir, 'workbench.sqlite'));
    try {
      const commits = await resolveCommits(repo, o.commits ? { commits: o.commits } : { last: o.last ?? 3 });
      const results = await regressRun({
        repo,
        store,
        commits,
        benches: o.bench,
        seeds: o.seeds,
        smoke: o.smoke,
        scratchDir: join(dir, 'regress-worktrees'),
        timeoutMs: o.timeoutMin * 60_000,
        log: (l) => console.error(l),
      });
      out(boardTable(regressBoard(store.regressResults().filter((r) => o.bench.includes(r.bench)))));
      return results.length > 0 ? 0 : 1;
    } finally {
      store.close();
    }
  }
  if (sub === 'show') {
    const o = ShowOptions.parse(parseFlags(flags));
    const store = openStore(join(resolveDataDir(o.dataDir), 'workbench.sqlite'));
    try {
      const board = regressBoard(store.regressResults(o.bench), o.window);
      out(o.json ? JSON.stringify(board, null, 2) : boardTable(board));
      return board.some((f) => f.rows.at(-1)?.flag) ? 2 : 0;
    } finally {
      store.close();
    }
  }
  throw new Error(`unknown regress command ${JSON.stringify(sub)}\n\n${regressHelp}`);
}
