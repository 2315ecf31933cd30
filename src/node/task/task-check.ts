// `agentjet task check DIR`: is a task folder ready to train? In order — its files are there; it
// typechecks against the SDK; client.ts bundles; every dataset row parses and the reward scores
// sample rows and its own examples as declared; and a few smoke episodes played against a worker
// (as eval episodes, never trained on) end with a reward. The verdict lists every failure with its
// file:line or, for a failing episode, the transcript the worker recorded.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker, type Worker } from '../../../gpu-worker/src/worker';
import { CHECKS, type CheckName, type TaskFailure, type TaskVerdict } from '../../shared/task-draft';
import { compileClient } from '../runner/index';
import { episodeTranscript, playTaskEpisodes, taskNodePaths, type TaskWorker } from './task-episodes';
import { placeInText, probeTask } from './task-probe';
import { ensureTaskTsconfig } from './task-tsconfig';

export const TASK_FILES = ['client.ts', 'reward.ts', 'data/train.jsonl', 'data/eval.jsonl'] as const;

export interface CheckOptions {
  repoRoot: string;
  cacheDir: string;
  /** Smoke episodes (0: skip the smoke check). */
  smokeEpisodes: number;
  /** A running worker; without one, a local worker with the built-in model is started for the check. */
  worker?: TaskWorker;
  log?: (line: string) => void;
  smokeTimeoutMs?: number;
}

const failure = (
  check: CheckName,
  message: string,
  at: Partial<Pick<TaskFailure, 'file' | 'line' | 'column'>> = {},
): TaskFailure => ({
  check,
  message,
  file: at.file ?? null,
  line: at.line ?? null,
  column: at.column ?? null,
  episodeId: null,
  transcript: null,
});

/** A local worker for smoke episodes (built-in model, one thread), in a temporary run folder. */
export async function startSmokeWorker(): Promise<{ worker: TaskWorker; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'aj-task-check-'));
  const tokens = { admin: randomBytes(16).toString('hex'), join: randomBytes(16).toString('hex') };
  let w: Worker;
  try {
    w = await startWorker(
      {
        model: 'builtin',
        port: 0,
        runDir: join(dir, 'run'),
        threads: 1,
        training: { defaultMaxTokens: 64, checkpointEvery: 0 },
      },
      { tokens, log: () => undefined },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    worker: { url: w.url, adminToken: tokens.admin, joinToken: tokens.join },
    dispose: async () => {
      await w.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function checkTask(dir: string, o: CheckOptions): Promise<TaskVerdict> {
  const checks: TaskVerdict['checks'] = [];
  const failures: TaskFailure[] = [];
  const log = o.log ?? (() => undefined);
  const run = async (
    name: CheckName,
    skip: string | null,
    fn: () => Promise<TaskFailure[]>,
    detail: (f: TaskFailure[]) => string = () => '',
  ): Promise<boolean> => {
    if (skip !== null) {
      checks.push({ name, ok: false, skipped: true, ms: 0, detail: skip });
      return false;
    }
    const t0 = performance.now();
    const found = await fn().catch((err: unknown) => [failure(name, err instanceof Error ? err.message : String(err))]);
    failures.push(...found);
    checks.push({
      name,
      ok: found.length === 0,
      skipped: false,
      ms: Math.round(performance.now() - t0),
      detail: detail(found),
    });
    log(`${found.length === 0 ? 'ok  ' : 'FAIL'} ${name}${found.length ? `: ${found.length} problem(s)` : ''}`);
    return found.length === 0;
  };
  const nodePaths = taskNodePaths(o.repoRoot);
  const filesOk = await run('files', null, async () =>
    TASK_FILES.filter((f) => !existsSync(join(dir, f))).map((f) => failure('files', `${f} is missing`, { file: f })),
  );
  const tsconfig = filesOk ? ensureTaskTsconfig(o.repoRoot, dir) : null;
  const typesOk = await run('typecheck', filesOk ? null : 'the files are missing', async () => {
    // The TypeScript compiler is large: loaded only when a check runs.
    const { typecheckFolder } = await import('./typecheck');
    return typecheckFolder(tsconfig!).map((p) =>
      failure('typecheck', p.message, { file: p.file, line: p.line, column: p.column }),
    );
  });
  const compileOk = await run('compile', filesOk ? null : 'the files are missing', async () => {
    const r = await compileClient(join(dir, 'client.ts'), { cacheDir: o.cacheDir, nodePaths });
    return r.ok
      ? []
      : r.errors.map((e) =>
          failure('compile', e.message, {
            file: e.file.startsWith(dir) ? e.file.slice(dir.length + 1) : e.file,
            line: e.line || null,
            column: e.column || null,
          }),
        );
  });
  let probe: Awaited<ReturnType<typeof probeTask>> | null = null;
  const probeOnce = async (): Promise<Awaited<ReturnType<typeof probeTask>>> =>
    (probe ??= await probeTask(dir, { cacheDir: o.cacheDir, nodePaths }));
  const datasetOk = await run('dataset', compileOk ? null : 'client.ts does not compile', async () =>
    (await probeOnce()).failures.filter((f) => f.check === 'dataset'),
  );
  const rewardOk = await run('reward', compileOk ? null : 'client.ts does not compile', async () =>
    (await probeOnce()).failures.filter((f) => f.check === 'reward'),
  );
  const smokeSkip =
    o.smokeEpisodes <= 0
      ? 'no smoke episodes asked for'
      : !(typesOk && compileOk && datasetOk && rewardOk)
        ? 'an earlier check failed'
        : null;
  await run('smoke', smokeSkip, () => smoke(dir, o, nodePaths));
  for (const name of CHECKS)
    if (!checks.some((c) => c.name === name)) checks.push({ name, ok: false, skipped: true, ms: 0, detail: '' });
  return {
    ok: failures.length === 0 && checks.every((c) => c.ok || (c.skipped && c.name === 'smoke' && o.smokeEpisodes <= 0)),
    dir,
    checks,
    failures,
  };
}

async function smoke(dir: string, o: CheckOptions, nodePaths: string[]): Promise<TaskFailure[]> {
  const local = o.worker ? null : await startSmokeWorker();
  const worker = o.worker ?? local!.worker;
  try {
    const played = await playTaskEpisodes({
      entry: join(dir, 'client.ts'),
      worker,
      episodes: o.smokeEpisodes,
      clientId: `task-check-${randomBytes(3).toString('hex')}`,
      nodePaths,
      cacheDir: o.cacheDir,
      concurrency: 2,
      timeoutMs: o.smokeTimeoutMs ?? 180_000,
    });
    const out: TaskFailure[] = [];
    const tail = played.output.slice(-15).join('\n');
    if (played.timedOut)
      out.push(
        failure(
          'smoke',
          `the smoke episodes did not finish within ${(o.smokeTimeoutMs ?? 180_000) / 1000} s; client output:\n${tail}`,
        ),
      );
    else if (played.exitCode !== 0) {
      const place = placeInText(tail);
      out.push(
        failure(
          'smoke',
          `client.ts exited with ${played.signal ?? `code ${played.exitCode}`} in eval mode; its output:\n${tail}`,
          place ?? { file: 'client.ts' },
        ),
      );
    }
    for (const ep of played.episodes) {
      if (ep.status === 'ended') continue;
      const transcript = await episodeTranscript(worker, ep.episodeId).catch(() => []);
      const reason = ep.reason ?? ep.status;
      const place = placeInText(`${reason}\n${tail}`);
      out.push({
        ...failure(
          'smoke',
          `episode ${ep.episodeId} (task ${ep.taskId ?? '?'}) was ${ep.status}: ${reason}`,
          place ?? {},
        ),
        episodeId: ep.episodeId,
        transcript,
      });
    }
    const ended = played.episodes.filter((e) => e.status === 'ended').length;
    if (out.length === 0 && ended < o.smokeEpisodes)
      out.push(failure('smoke', `only ${ended} of ${o.smokeEpisodes} smoke episodes ended; client output:\n${tail}`));
    return out;
  } finally {
    await local?.dispose();
  }
}
