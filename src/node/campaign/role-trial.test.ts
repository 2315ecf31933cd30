// Two-role trials, real (CI): a tiny separate-vs-shared study through `agentjet campaign run` on the
// proposer/solver game. The `separate` trial starts two real workers (the proposer's and the solver's,
// each in its own folder), the `shared` trial one worker for both roles; the clients address each role's
// worker, and the held-out evaluation plays rounds across them. The report carries joint success and
// each role's own success per arm.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CampaignStore } from './campaign-store';

const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin', 'agentjet.mjs');

const STUDY = `kind: study
name: ci-roles
question: One worker per role or one shared?
base:
  task: proposer-solver
  clients: 1
  training: { strategy: C1, batch: 2, algo: reinforce, defaultMaxTokens: 32 }
  worker: { threads: 1, seed: 1 }
  eval: { episodes: 2, everyMinutes: 0.5 }
arms:
  separate: { description: 'one worker per role', roles: separate }
  shared: { description: 'one worker for both roles', roles: shared }
seeds: 1
budget: { minutes: 0.5, updates: 2 }
metric: { metric: eval_success, summary: final }
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

/** The rounds client.ts logged: each names the episode it played on each role's worker. */
const rounds = (log: string): { proposerEpisode: string; solverEpisode: string }[] =>
  log
    .split('\n')
    .flatMap((l) => {
      const m = /^\[[^\]]+\] (\{.*"proposerEpisode".*\})$/.exec(l);
      return m ? [m[1]!] : [];
    })
    .map((j) => {
      const o: unknown = JSON.parse(j);
      if (typeof o !== 'object' || o === null || !('proposerEpisode' in o) || !('solverEpisode' in o))
        throw new Error(`not a round: ${j}`);
      return { proposerEpisode: String(o.proposerEpisode), solverEpisode: String(o.solverEpisode) };
    });

describe('two-role trials (real workers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-roles-'));
  const file = join(dir, 'study.yaml');
  const dataDir = join(dir, 'data');
  writeFileSync(file, STUDY);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs one worker per role and one shared worker, and reports joint and per-role success', async () => {
    const r = await run([file, '--data-dir', dataDir]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('study ci-roles done');
    const trials = join(dataDir, 'campaigns', 'ci-roles', 'trials');
    const folder = (n: number): string => join(trials, String(n).padStart(4, '0'));
    // separate: a worker (its own run folder and log) per role; shared: one.
    for (const role of ['proposer', 'solver']) expect(existsSync(join(folder(0), role, 'worker.log'))).toBe(true);
    expect(existsSync(join(folder(0), 'shared'))).toBe(false);
    expect(existsSync(join(folder(1), 'shared', 'worker.log'))).toBe(true);
    expect(existsSync(join(folder(1), 'proposer'))).toBe(false);
    // The clients played whole rounds: an episode on each role's worker, ended (client.ts logs it then).
    for (const n of [0, 1])
      expect(rounds(readFileSync(join(folder(n), 'clients.log'), 'utf8')).length).toBeGreaterThan(0);
    const store = CampaignStore.open(join(dataDir, 'workbench.sqlite'));
    try {
      const rows = store.trials('ci-roles');
      expect(rows.map((t) => `${String(t.params['arm'])}:${t.state}`)).toEqual([
        'separate:complete',
        'shared:complete',
      ]);
      for (const t of rows) {
        expect(t.points.map((p) => p.index)).toEqual([0, 1]);
        for (const p of t.points) {
          expect(p.evalEpisodes).toBe(2);
          expect(Object.keys(p.roles ?? {}).sort()).toEqual(['proposer', 'solver']);
        }
      }
    } finally {
      store.close();
    }
    const md = readFileSync(join(dataDir, 'campaigns', 'ci-roles', 'report.md'), 'utf8');
    expect(md).toContain('## Each role');
    expect(md).toMatch(/\| separate \| -?\d+\.\d pp \(1 seed\) \| -?\d+\.\d pp \(1 seed\) \|/);
  }, 900_000);
});
