// The dataset and reward checks of `agentjet task check`, run inside the task's own code: a small
// probe program (bundled with esbuild next to reward.ts, run as a child process with a time limit)
// parses every row of data/train.jsonl and data/eval.jsonl with the task's `parseTask`, scores
// sample rows with `reward`, and runs `rewardExamples`; it prints one JSON object that is parsed
// here. A reward that throws or hangs is a failure with its place, never a crash of the checker.
import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { TaskFailure } from '../../shared/task-draft';
import { compileClient } from '../runner/index';

const PROBE = `
import * as task from './reward';
import { existsSync, readFileSync } from 'node:fs';
const out = { rows: { train: 0, eval: 0 }, problems: [], examples: 0 };
const problem = (check, file, line, message) => out.problems.push({ check, file, line, message });
const mod = task;
const where = (err) => String(err && err.stack ? err.stack : err).split('\\n').slice(0, 4).join('\\n');
if (typeof mod.parseTask !== 'function') problem('dataset', 'reward.ts', null, 'reward.ts must export parseTask(raw: unknown): Task (it throws for a bad row)');
if (typeof mod.reward !== 'function') problem('reward', 'reward.ts', null, 'reward.ts must export reward(task, messages): { reward, success, metrics? }');
const ids = new Map();
const rows = { train: [], eval: [] };
for (const split of ['train', 'eval']) {
  const file = 'data/' + split + '.jsonl';
  if (!existsSync(file)) { problem('dataset', file, null, 'missing'); continue; }
  readFileSync(file, 'utf8').split('\\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let raw;
    try { raw = JSON.parse(line); } catch (err) { problem('dataset', file, i + 1, 'not JSON: ' + err.message); return; }
    if (typeof mod.parseTask !== 'function') return;
    let row;
    try { row = mod.parseTask(raw); } catch (err) { problem('dataset', file, i + 1, 'parseTask refused the row: ' + (err && err.message ? err.message : String(err))); return; }
    const id = row && typeof row.id === 'string' ? row.id : null;
    if (!id) { problem('dataset', file, i + 1, 'a task row needs a string "id"'); return; }
    if (ids.has(id)) problem('dataset', file, i + 1, 'id ' + JSON.stringify(id) + ' repeats ' + ids.get(id));
    ids.set(id, file + ':' + (i + 1));
    rows[split].push(row);
  });
  out.rows[split] = rows[split].length;
}
if (out.rows.train < MIN_TRAIN) problem('dataset', 'data/train.jsonl', null, 'the train split needs at least ' + MIN_TRAIN + ' tasks (has ' + out.rows.train + ')');
if (out.rows.eval < MIN_EVAL) problem('dataset', 'data/eval.jsonl', null, 'the eval split needs at least ' + MIN_EVAL + ' tasks (has ' + out.rows.eval + ')');
const scoreOk = (s) => s && typeof s.reward === 'number' && Number.isFinite(s.reward) && typeof s.success === 'boolean';
if (typeof mod.reward === 'function') {
  for (const row of [...rows.train.slice(0, 3), ...rows.eval.slice(0, 2)]) {
    try {
      const s = mod.reward(row, [{ role: 'user', content: 'check' }, { role: 'assistant', content: '' }]);
      if (!scoreOk(s)) problem('reward', 'reward.ts', null, 'reward(' + row.id + ', …) returned ' + JSON.stringify(s) + '; expected { reward: finite number, success: boolean }');
    } catch (err) { problem('reward', 'reward.ts', null, 'reward threw on row ' + row.id + ': ' + where(err)); }
  }
  const examples = Array.isArray(mod.rewardExamples) ? mod.rewardExamples : null;
  if (!examples || examples.length < 2) problem('reward', 'reward.ts', null, 'reward.ts must export rewardExamples: at least two { task, messages, reward } (a right answer and a wrong one)');
  (examples || []).forEach((ex, i) => {
    try {
      const s = mod.reward(ex.task, ex.messages);
      if (!scoreOk(s)) problem('reward', 'reward.ts', null, 'rewardExamples[' + i + ']: reward returned ' + JSON.stringify(s));
      else if (Math.abs(s.reward - ex.reward) > 1e-9) problem('reward', 'reward.ts', null, 'rewardExamples[' + i + ']: expected reward ' + ex.reward + ', got ' + s.reward);
      out.examples++;
    } catch (err) { problem('reward', 'reward.ts', null, 'rewardExamples[' + i + ']: reward threw: ' + where(err)); }
  });
}
process.stdout.write(JSON.stringify(out));
`;

const ProbeOutSchema = z.object({
  rows: z.object({ train: z.number().int(), eval: z.number().int() }),
  problems: z.array(
    z.object({
      check: z.enum(['dataset', 'reward']),
      file: z.string().nullable(),
      line: z.number().int().nullable(),
      message: z.string(),
    }),
  ),
  examples: z.number().int(),
});
export type ProbeResult = z.infer<typeof ProbeOutSchema>;

/** `file:line` of the first stack frame inside the task folder, from a stack or log text. */
export function placeInText(
  text: string,
  names: readonly string[] = ['client.ts', 'reward.ts'],
): { file: string; line: number; column: number } | null {
  for (const name of names) {
    const m = new RegExp(`${name.replace('.', '\\.')}:(\\d+):(\\d+)`).exec(text);
    if (m) return { file: name, line: Number(m[1]), column: Number(m[2]) };
  }
  return null;
}

interface ProbeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs the bundled probe in the task folder; killed after `timeoutMs`. */
function runProbe(bundlePath: string, dir: string, timeoutMs: number): Promise<ProbeRun> {
  return new Promise<ProbeRun>((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', bundlePath], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (c) => {
      clearTimeout(timer);
      resolve({ code: c, stdout: out, stderr: err, timedOut: killed });
    });
  });
}

export async function probeTask(
  dir: string,
  o: { cacheDir: string; nodePaths: string[]; timeoutMs?: number; minTrain?: number; minEval?: number },
): Promise<{ result: ProbeResult | null; failures: TaskFailure[] }> {
  const timeoutMs = o.timeoutMs ?? 20_000;
  const source = PROBE.replace(/MIN_TRAIN/g, String(o.minTrain ?? 10)).replace(/MIN_EVAL/g, String(o.minEval ?? 3));
  const fail = (
    check: TaskFailure['check'],
    message: string,
    file: string | null = null,
    line: number | null = null,
  ): TaskFailure => ({ check, file, line, column: null, message, episodeId: null, transcript: null });
  const compiled = await compileClient(
    { source, resolveDir: dir, sourcefile: '__agentjet_task_check__.ts' },
    { cacheDir: o.cacheDir, nodePaths: o.nodePaths },
  );
  if (!compiled.ok)
    return {
      result: null,
      failures: compiled.errors.map((e) => ({
        ...fail('reward', e.message, e.file.startsWith(dir) ? e.file.slice(dir.length + 1) : e.file, e.line || null),
        column: e.column || null,
      })),
    };
  const { code, stdout, stderr, timedOut } = await runProbe(compiled.bundlePath, dir, timeoutMs);
  if (timedOut)
    return {
      result: null,
      failures: [
        fail(
          'reward',
          `loading reward.ts and scoring the rows did not finish within ${timeoutMs / 1000} s (an endless loop?)`,
          'reward.ts',
        ),
      ],
    };
  const parsed = ProbeOutSchema.safeParse(
    (() => {
      try {
        return JSON.parse(stdout) as unknown;
      } catch {
        return null;
      }
    })(),
  );
  if (code !== 0 || !parsed.success) {
    const place = placeInText(stderr);
    return {
      result: null,
      failures: [
        {
          ...fail('reward', `loading reward.ts failed (exit ${code}): ${stderr.split('\n').slice(0, 8).join('\n')}`),
          file: place?.file ?? 'reward.ts',
          line: place?.line ?? null,
          column: place?.column ?? null,
        },
      ],
    };
  }
  return { result: parsed.data, failures: parsed.data.problems.map((p) => fail(p.check, p.message, p.file, p.line)) };
}
