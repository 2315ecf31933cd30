// Runs reward code over recorded episodes in a child process — never in the workbench process —
// with bounds on everything a bad reward can do: an endless loop is a per-episode timeout (the
// child is killed and a fresh one takes the next episode), a throw or a non-number is that
// episode's error, printing more than `maxOutputBytes` kills the child and fails the episode, a
// crash fails the episode it was on; after `maxFailures` kills the rest are skipped. TypeScript
// and JavaScript rewards are bundled with the client runner's esbuild (exactly as the client runs
// them); `.py` rewards run in Python.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import { compileClient, formatCompileMessage } from '../runner/index';
import { NODE_HARNESS, PYTHON_HARNESS } from './harness';

export interface RewardItem {
  task: unknown;
  messages: unknown[];
}

export type RewardOutcome = { ok: true; reward: number; success?: boolean } | { ok: false; error: string };

export interface RunRewardOptions {
  /** The reward file (.ts, .js, .mjs or .py). */
  file: string;
  /** The function to call; default `reward`, else the one exported `*Score` function. */
  exportName?: string;
  cacheDir: string;
  nodePaths: string[];
  /** Edited contents by absolute path, served in place of the files on disk (TypeScript/JavaScript only). */
  overlay?: Readonly<Record<string, string>>;
  python?: string;
  perEpisodeMs?: number;
  maxOutputBytes?: number;
  maxFailures?: number;
}

const LineSchema = z.union([
  z.object({ ready: z.string() }),
  z.object({ fatal: z.string() }),
  z.object({ i: z.number().int(), reward: z.number(), success: z.boolean().optional(), printed: z.number() }),
  z.object({ i: z.number().int(), error: z.string(), printed: z.number() }),
]);
type Line = z.infer<typeof LineSchema>;

const DEFAULT_MAX_OUTPUT = 1 << 20;

/** Thrown when the reward cannot be run at all (does not compile, exports no reward, fails to load). */
export class RewardLoadError extends Error {}

interface Child {
  proc: ChildProcess;
  next(timeoutMs: number): Promise<Line | { gone: string }>;
  printed: number;
}

async function command(o: RunRewardOptions): Promise<{ cmd: string; args: string[]; tempDir?: string }> {
  if (o.file.endsWith('.py')) {
    // An edited Python file runs from a copy; its folder stays first on sys.path for its imports.
    const edited = o.overlay?.[o.file];
    const tempDir = edited === undefined ? undefined : mkdtempSync(join(tmpdir(), 'aj-reward-py-'));
    const file = tempDir === undefined ? o.file : join(tempDir, basename(o.file));
    if (tempDir !== undefined) writeFileSync(file, edited ?? '');
    const args = ['-c', PYTHON_HARNESS, file, o.exportName ?? '', dirname(o.file)];
    return { cmd: o.python ?? 'python3', args, ...(tempDir !== undefined ? { tempDir } : {}) };
  }
  const source = NODE_HARNESS.replace('REWARD_PATH', JSON.stringify(o.file))
    .replace('EXPORT_NAME', JSON.stringify(o.exportName ?? ''))
    .replace('MAX_OUTPUT', String(o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT));
  const compiled = await compileClient(
    { source, resolveDir: process.cwd(), sourcefile: '__agentjet_reward_try__.ts', overlay: o.overlay ?? {} },
    { cacheDir: o.cacheDir, nodePaths: o.nodePaths },
  );
  if (!compiled.ok) throw new RewardLoadError(compiled.errors.map((e) => formatCompileMessage(e)).join('\n'));
  return { cmd: process.execPath, args: ['--max-old-space-size=512', compiled.bundlePath] };
}

function startChild(cmd: string, args: string[], maxOutputBytes: number): Child {
  const proc = spawn(cmd, args, {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '', PYTHONUNBUFFERED: '1' },
  });
  const lines: Line[] = [];
  let waiter: ((l: Line | { gone: string }) => void) | null = null;
  let gone: string | null = null;
  let stderrTail = '';
  const child: Child = { proc, printed: 0, next: () => Promise.resolve({ gone: '' }) };
  const deliver = (l: Line | { gone: string }): void => {
    if (waiter) {
      const w = waiter;
      waiter = null;
      w(l);
    } else if ('gone' in l) gone = l.gone;
    else lines.push(l);
  };
  const count = (stream: Readable | null, keep: boolean): void =>
    void stream?.on('data', (c: Buffer) => {
      child.printed += c.length;
      if (keep) stderrTail = (stderrTail + c.toString()).slice(-600);
      if (child.printed > maxOutputBytes) proc.kill('SIGKILL');
    });
  count(proc.stdout, false);
  count(proc.stderr, true);
  const results = proc.stdio[3] as Readable;
  createInterface({ input: results }).on('line', (text) => {
    const parsed = (() => {
      try {
        return LineSchema.safeParse(JSON.parse(text));
      } catch {
        return null;
      }
    })();
    deliver(parsed?.success ? parsed.data : { gone: `unreadable result line: ${text.slice(0, 200)}` });
  });
  proc.on('error', (err) => deliver({ gone: err.message }));
  proc.on('exit', (code, signal) =>
    deliver({ gone: `exited (${signal ?? `code ${code}`})${stderrTail ? `: ${stderrTail.trim().slice(-400)}` : ''}` }),
  );
  (proc.stdin as Writable).on('error', () => undefined);
  child.next = (timeoutMs) => {
    const queued = lines.shift();
    if (queued) return Promise.resolve(queued);
    if (gone !== null) return Promise.resolve({ gone });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiter = null;
        resolve({ gone: 'timeout' });
      }, timeoutMs);
      waiter = (l) => {
        clearTimeout(timer);
        resolve(l);
      };
    });
  };
  return child;
}

/** Scores every item; one outcome per item, in order. Throws RewardLoadError when nothing can run. */
export async function runReward(items: readonly RewardItem[], o: RunRewardOptions): Promise<RewardOutcome[]> {
  const perEpisodeMs = o.perEpisodeMs ?? 2000;
  const maxOutput = o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const maxFailures = o.maxFailures ?? 10;
  const { cmd, args, tempDir } = await command(o);
  const outcomes: RewardOutcome[] = [];
  let child: Child | null = null;
  let kills = 0;
  const start = async (): Promise<Child> => {
    const c = startChild(cmd, args, maxOutput);
    const first = await c.next(Math.max(10_000, perEpisodeMs));
    if ('ready' in first) return c;
    c.proc.kill('SIGKILL');
    const why = 'fatal' in first ? first.fatal : 'gone' in first ? first.gone : 'no ready line';
    throw new RewardLoadError(
      why === 'timeout' ? 'loading the reward file did not finish in time (an endless loop?)' : why,
    );
  };
  try {
    for (const [i, item] of items.entries()) {
      if (kills >= maxFailures) {
        outcomes.push({ ok: false, error: `skipped: ${kills} episodes already killed the reward process` });
        continue;
      }
      child ??= await start();
      child.printed = 0;
      (child.proc.stdin as Writable).write(`${JSON.stringify({ i, task: item.task, messages: item.messages })}\n`);
      const line = await child.next(perEpisodeMs);
      if ('i' in line && line.i === i) {
        if (line.printed > maxOutput) outcomes.push({ ok: false, error: `printed more than ${maxOutput} bytes` });
        else if ('error' in line) outcomes.push({ ok: false, error: line.error });
        else
          outcomes.push({
            ok: true,
            reward: line.reward,
            ...(line.success !== undefined ? { success: line.success } : {}),
          });
        continue;
      }
      const printedTooMuch = child.printed > maxOutput;
      child.proc.kill('SIGKILL');
      child = null;
      kills++;
      const gone = 'gone' in line ? line.gone : 'answered out of order';
      outcomes.push({
        ok: false,
        error: printedTooMuch
          ? `printed more than ${maxOutput} bytes (killed)`
          : gone === 'timeout'
            ? `did not return within ${perEpisodeMs} ms (killed)`
            : `the reward process ${gone}`,
      });
    }
  } finally {
    child?.proc.kill('SIGKILL');
    if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
  }
  return outcomes;
}
