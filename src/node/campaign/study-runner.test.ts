// A real study, tiny (CI): `agentjet campaign run STUDY.yaml` as a child process, two arms × two
// seeds, each trial a real local worker (the built-in model) trained for two updates at most and
// evaluated before and after. The report must carry each arm's mean ± standard error, the
// comparison with its Welch standard error and a verdict, and the power statement; the store must
// hold the study as a campaign (what the Campaigns panel lists), its trials by arm.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CampaignStore } from './campaign-store';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin', 'agentjet.mjs');

const STUDY = `kind: study
name: ci-study
question: Does a higher learning rate help at two updates?
base:
  task: calculator-agent
  clients: 1
  training: { strategy: C2, batch: 1, groupSize: 2, defaultMaxTokens: 32 }
  worker: { threads: 1, seed: 1 }
  eval: { episodes: 2, everyMinutes: 0.2 }
arms:
  low: { description: 'lr 1e-5', training: { lr: 1.0e-5 } }
  high: { description: 'lr 1e-3', training: { lr: 1.0e-3 } }
seeds: 2
budget: { minutes: 0.2, updates: 2 }
metric: { metric: eval_success, summary: gain }
effect: 0.1
`;

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, 'campaign', 'run', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((r) => child.once('exit', (code) => r({ code, out })));
}

describe('study runner (real workers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-study-'));
  const file = join(dir, 'study.yaml');
  const dataDir = join(dir, 'data');
  writeFileSync(file, STUDY);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs arms × seeds and reports means ± SE, the verdict and the power statement', async () => {
    const r = await run([file, '--data-dir', dataDir]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('study ci-study done');
    expect(r.out).toMatch(/high − low: .* · (high better|low better|no difference detectable at this budget)/);
    const md = readFileSync(join(dataDir, 'campaigns', 'ci-study', 'report.md'), 'utf8');
    expect(md).toContain('# Study: ci-study');
    expect(md).toMatch(/\| low \| lr 1e-5 \| -?\d+\.\d pp ± \d+\.\d pp \| 2 \|/);
    expect(md).toMatch(/\| high − low \| -?\d+\.\d pp ± \d+\.\d pp \| (high better|low better|no difference)/);
    expect(md).toMatch(/seeds per arm|noise is not measured/);
    expect(existsSync(join(dataDir, 'campaigns', 'ci-study', 'report.html'))).toBe(true);
    const store = CampaignStore.open(join(dataDir, 'workbench.sqlite'));
    try {
      expect(store.list(Date.now()).map((c) => [c.name, c.state])).toEqual([['ci-study', 'done']]);
      const trials = store.trials('ci-study');
      expect(trials.map((t) => `${t.number}:${String(t.params['arm'])}:${t.seed}:${t.state}`)).toEqual([
        '0:low:1:complete',
        '1:high:1:complete',
        '2:low:2:complete',
        '3:high:2:complete',
      ]);
      // Before training and after (an update needs a group with a reward spread: a loaded CPU may make none).
      for (const t of trials) expect(t.points.map((p) => p.index)).toEqual([0, 1]);
    } finally {
      store.close();
    }
    // Run again: every trial is complete, so nothing re-runs and the report stands.
    const again = await run([file, '--data-dir', dataDir]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).not.toContain('▶');
    // A trial left interrupted (a study stopped mid-trial) runs again, at the first attempt, beside its old folder.
    const resumed = CampaignStore.open(join(dataDir, 'workbench.sqlite'));
    try {
      const last = resumed.trials('ci-study').find((t) => t.number === 3)!;
      resumed.putTrial({ ...last, state: 'interrupted', endedAt: Date.now() });
    } finally {
      resumed.close();
    }
    const third = await run([file, '--data-dir', dataDir]);
    expect(third.code, third.out).toBe(0);
    expect(third.out.match(/▶/g), third.out).toHaveLength(1);
    expect(third.out).not.toContain('failed');
    const trialsDir = join(dataDir, 'campaigns', 'ci-study', 'trials');
    expect(readdirSync(trialsDir).filter((d) => d.startsWith('0003.earlier-'))).toHaveLength(1);
  }, 900_000);

  it('refuses a bad --scale with the reason', async () => {
    const scale = await run([file, '--data-dir', dataDir, '--scale', '-1']);
    expect(scale.code).not.toBe(0);
    expect(scale.out).toMatch(/scale/);
  }, 180_000);
});
