// A real campaign, small (CI): `agentjet campaign run` as a child process with local workers (the
// built-in model), Optuna in its own process. The first trial's worker is SIGKILLed — that trial
// fails with the cause and the campaign goes on; then the runner itself is SIGKILLed mid-trial,
// and running it again resumes: the interrupted trial re-runs with the same configuration, the
// budget counts what the first session finished, and the report is written.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TrialRow } from '../../shared/campaign/trials';
import { CampaignStore } from './campaign-store';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin', 'agentjet.mjs');

const CAMPAIGN = `name: ci-resume
question: Does the runner survive a dead worker and its own death?
base:
  task: calculator-agent
  clients: 1
  training: { strategy: C2, batch: 1, groupSize: 2, defaultMaxTokens: 32 }
  worker: { threads: 1, seed: 1 }
  eval: { episodes: 2, everyMinutes: 0.15, atStart: false }
search:
  lr: { float: [1e-5, 1e-3], log: true }
optimizer: { sampler: random, seed: 5, pruner: { type: none } }
budget: { trials: 2, minutesPerTrial: 0.3 }
workers: { local: 1 }
`;

function run(
  file: string,
  dataDir: string,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'campaign', 'run', file, '--data-dir', dataDir], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return { child, output: () => out, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
}

async function until<T>(probe: () => T | undefined, what: () => string, timeoutMs = 240_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const trials = (db: string): TrialRow[] => {
  if (!existsSync(db)) return [];
  const s = CampaignStore.open(db);
  try {
    return s.has('ci-resume') ? s.trials('ci-resume') : [];
  } finally {
    s.close();
  }
};

describe('campaign runner (real workers, killed and resumed)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-campaign-'));
  const file = join(dir, 'campaign.yaml');
  const dataDir = join(dir, 'data');
  const db = join(dataDir, 'workbench.sqlite');
  const children: ChildProcess[] = [];
  writeFileSync(file, CAMPAIGN);

  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'fails a trial whose worker dies, goes on, and resumes after the runner is killed',
    { timeout: 600_000 },
    async () => {
      const first = run(file, dataDir);
      children.push(first.child);
      // Trial 0: once its worker serves, kill the worker process.
      const workerJson = join(dataDir, 'campaigns', 'ci-resume', 'trials', '0000', 'worker', 'worker.json');
      await until(
        () =>
          existsSync(workerJson) && trials(db).some((t) => t.number === 0 && t.runDir !== null) ? true : undefined,
        () => `trial 0's worker\n${first.output()}`,
      );
      const { pid } = z
        .object({ pid: z.number() })
        .loose()
        .parse(JSON.parse(readFileSync(workerJson, 'utf8')));
      process.kill(pid, 'SIGKILL');
      const failed = await until(
        () => trials(db).find((t) => t.number === 0 && t.state === 'failed'),
        () => `trial 0 to fail\n${first.output()}`,
      );
      expect(failed.note).toMatch(/worker process exited \(SIGKILL\)|stopped answering/);
      // Trial 1 starts; kill the runner while it runs.
      const t1 = await until(
        () => trials(db).find((t) => t.number === 1 && t.state === 'running' && t.runDir !== null),
        () => `trial 1 to run\n${first.output()}`,
      );
      first.child.kill('SIGKILL');
      await first.exited;

      const second = run(file, dataDir);
      children.push(second.child);
      const code = await second.exited;
      expect(code, second.output()).toBe(0);
      expect(second.output()).toContain('resumed (re-running trial 1)');
      const all = trials(db);
      expect(all.map((t) => [t.number, t.state])).toEqual([
        [0, 'failed'],
        [1, 'interrupted'],
        [2, 'complete'],
      ]);
      const rerun = all[2]!;
      expect(rerun).toMatchObject({ source: 'rerun', params: t1.params, seed: t1.seed });
      expect(rerun.value).toEqual(expect.any(Number));
      expect(rerun.points.length).toBeGreaterThanOrEqual(1);
      const report = readFileSync(join(dataDir, 'campaigns', 'ci-resume', 'report.md'), 'utf8');
      expect(report).toContain('# Campaign ci-resume');
      expect(report).toContain('## Failed');
      expect(report).toMatch(/Trial 0 .*worker process exited/);
      expect(readFileSync(join(dataDir, 'campaigns', 'ci-resume', 'report.html'), 'utf8')).toContain('<svg');
      const s = CampaignStore.open(db);
      expect(s.summary('ci-resume', Date.now())).toMatchObject({
        state: 'done',
        live: false,
        completed: 1,
        failed: 1,
        trials: 2,
      });
      s.close();
    },
  );
});
