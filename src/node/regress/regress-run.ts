// `agentjet regress run` (docs/inner-loop.md#regression-board): each commit is checked out into a
// scratch git worktree (detached; node_modules and the engine's virtualenv linked from the
// repository, as the helpers' worktrees are), the chosen benchmarks run there (`tsx bench/run.ts`)
// with fixed seeds, and every figure of each benchmark's JSON summary is stored in the workbench
// database with the commit, its date and subject, the seed and the machine. The scratch worktree
// is removed afterwards whatever happened.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RegressResult } from '../../shared/inner-loop';
import type { Store } from '../store/index';
import { flattenFigures, lastJsonLine } from './figures';

const exec = promisify(execFile);

/** Short settings per benchmark for `--smoke` (a few minutes on a laptop CPU in all). */
export const SMOKE_ARGS: Record<string, string[]> = {
  // calc and guess both: older commits play the two together under either name
  merge: ['--repeats', '1', '--episodes', '2', '--tasks', '2', '--settings', 'calc,guess,2'],
  train: ['--minutes', '1', '--no-chaos', '--frameworks', 'openai', '--clients', '1', '--eval-episodes', '20'],
  server: [],
  store: [],
};
/** Benchmarks that take a `--seed` (the others are run once per seed all the same: repeat measurements). */
export const SEEDED = new Set(['train']);

export interface RegressRunOptions {
  repo: string;
  store: Store;
  commits: string[];
  benches: string[];
  seeds: number[];
  smoke: boolean;
  scratchDir: string;
  timeoutMs: number;
  log: (line: string) => void;
}

export const machineName = (): string => `${hostname()} (${cpus().length}× ${cpus()[0]?.model.trim() ?? 'cpu'})`;

async function git(repo: string, args: string[]): Promise<string> {
  return (await exec('git', ['-C', repo, ...args], { maxBuffer: 1 << 24 })).stdout.trim();
}

/** `A..B` → the commits after A up to B, oldest first; `last` → the newest N of HEAD, oldest first. */
export async function resolveCommits(repo: string, range: { commits?: string; last?: number }): Promise<string[]> {
  const out = range.commits
    ? await git(repo, ['rev-list', '--reverse', range.commits])
    : await git(repo, ['rev-list', '--reverse', `--max-count=${range.last ?? 3}`, 'HEAD']);
  const list = out.split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l));
  if (list.length === 0) throw new Error(`no commits in ${range.commits ?? `the last ${range.last}`}`);
  return list;
}

function runBench(dir: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(dir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bench/run.ts', ...args],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let output = '';
    const keep = (c: Buffer): void => void (output = (output + c.toString()).slice(-200_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Runs every benchmark × seed at one commit in a scratch worktree; returns the stored figures. */
async function atCommit(o: RegressRunOptions, sha: string, machine: string): Promise<RegressResult[]> {
  const [date, subject] = (await git(o.repo, ['show', '-s', '--format=%ct%n%s', sha])).split('\n');
  const dir = join(o.scratchDir, sha.slice(0, 12));
  mkdirSync(o.scratchDir, { recursive: true });
  await git(o.repo, ['worktree', 'add', '--detach', '--force', dir, sha]);
  const results: RegressResult[] = [];
  try {
    symlinkSync(join(o.repo, 'node_modules'), join(dir, 'node_modules'));
    const venv = join(o.repo, 'gpu-worker', 'engine', '.venv');
    if (existsSync(venv)) symlinkSync(venv, join(dir, 'gpu-worker', 'engine', '.venv'));
    for (const bench of o.benches)
      for (const seed of o.seeds) {
        const args = [
          bench,
          ...(o.smoke ? (SMOKE_ARGS[bench] ?? []) : []),
          ...(SEEDED.has(bench) ? ['--seed', String(seed)] : []),
        ];
        o.log(`${sha.slice(0, 9)} ${bench} seed ${seed}: ${args.slice(1).join(' ')}`);
        const run = await runBench(dir, args, o.timeoutMs);
        const figures = flattenFigures(lastJsonLine(run.output));
        if (run.code !== 0 || figures.length === 0) {
          o.log(`  failed (exit ${run.code}): ${run.output.trim().split('\n').slice(-3).join(' | ').slice(0, 400)}`);
          continue;
        }
        const ranAt = Date.now() / 1000;
        const rows = figures.map((f) => ({
          commit: sha,
          commitDate: Number(date),
          subject: subject ?? '',
          bench,
          seed,
          machine,
          ranAt,
          ...f,
        }));
        o.store.putRegressResults(rows);
        results.push(...rows);
        o.log(`  ${rows.length} figures stored`);
      }
  } finally {
    await git(o.repo, ['worktree', 'remove', '--force', dir]).catch((err: unknown) =>
      o.log(`could not remove the scratch worktree ${dir}: ${String(err)}`),
    );
  }
  return results;
}

export async function regressRun(o: RegressRunOptions): Promise<RegressResult[]> {
  const machine = machineName();
  const all: RegressResult[] = [];
  for (const sha of o.commits) all.push(...(await atCommit(o, sha, machine)));
  return all;
}
