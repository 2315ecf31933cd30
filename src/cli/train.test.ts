// `agentjet train` end to end (the real engine and built-in model): two openai-SDK clients, two
// C1 steps, metrics in the run dir; the cocktail (both tasks, per-task figures side by side); and the
// Python example client playing one episode.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EpisodeSummarySchema, StatusSchema } from '../shared/swarm-protocol';
import { admin, REPO_ROOT, runProcess, startWorkerProcess, TOKENS } from '../sdk/testing/worker-process';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const MetricsLineSchema = z.object({ rewardMean: z.number(), episodes: z.number().int(), stepSeconds: z.number() });

/** `agentjet train` for two C1 steps of 4 episodes with 2 clients, in a run dir of its own. */
async function trainTwoSteps(example: string[]): Promise<{ runDir: string; code: number | null; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'aj-train-'));
  dirs.push(dir);
  const runDir = join(dir, 'run');
  const args = ['bin/agentjet.mjs', 'train', ...example, '--clients', '2', '--steps', '2', '--strategy', 'C1'];
  args.push('--batch', '4', '--run-dir', runDir, '--threads', '1', '--max-tokens', '48', '--seed', '1');
  return { runDir, ...(await runProcess(process.execPath, args, process.env, 150_000)) };
}

describe('agentjet train', () => {
  it('trains calculator-agent for 2 steps with 2 clients and writes 2 metrics lines', async () => {
    const { runDir, code, out } = await trainTwoSteps(['calculator-agent']);
    expect(code, out).toBe(0);
    const steps = [...out.matchAll(/^step (\d+)\/2 .*· reward (\d+\.\d+) · success/gm)];
    expect(steps.map((m) => m[1])).toEqual(['1', '2']);
    for (const m of steps) expect(Number.isFinite(Number(m[2]))).toBe(true);
    expect(out).toMatch(/done: 2 steps/);
    const lines = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(MetricsLineSchema.parse(JSON.parse(line)).episodes).toBeGreaterThanOrEqual(4);
  }, 160_000);

  it('trains the cocktail (mix 0.5) and reports calc | guess per step and in metrics.jsonl', async () => {
    const { runDir, code, out } = await trainTwoSteps(['cocktail', '--mix', '0.5']);
    expect(code, out).toBe(0);
    expect(out).toMatch(/agentjet train cocktail \(mix 0\.5 calc \/ 0\.5 guess\)/);
    const figures = '(?:-|reward \\d+\\.\\d{3} success (?:-|\\d+\\.\\d%) \\(\\d+\\))';
    const steps = [...out.matchAll(new RegExp(`^step (\\d+)/2 .* · calc ${figures} \\| guess ${figures}$`, 'gm'))];
    expect(
      steps.map((m) => m[1]),
      out,
    ).toEqual(['1', '2']);
    expect(out).toMatch(/calc reward +calc success +guess reward +guess success/);
    const Figures = z.object({
      episodes: z.number().int(),
      rewardMean: z.number().nullable(),
      successRate: z.number().nullable(),
    });
    const Line = MetricsLineSchema.extend({ tasks: z.object({ calc: Figures, guess: Figures }) });
    const lines = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Line.parse(JSON.parse(l)));
    expect(lines).toHaveLength(2);
    // A step whose episodes had not all been reported yet may show '-' for a task; the run as a whole has some.
    expect(lines.reduce((s, l) => s + l.tasks.calc.episodes + l.tasks.guess.episodes, 0)).toBeGreaterThan(0);
  }, 160_000);

  it("runs the Python calculator client against a real worker, a group's episodes at once", async () => {
    const w = await startWorkerProcess(['--strategy', 'C1', '--batch', '1000', '--max-tokens', '48']);
    try {
      const env = {
        ...process.env,
        AGENTJET_SERVER_URL: w.url,
        AGENTJET_JOIN_TOKEN: TOKENS.join,
        AGENTJET_CLIENT_ID: 'py-test',
        AGENTJET_MAX_EPISODES: '4',
        AGENTJET_GROUP_SIZE: '4',
        PYTHONUNBUFFERED: '1',
      };
      const { code, out } = await runProcess(
        process.env['PYTHON'] ?? 'python3',
        [join(REPO_ROOT, 'resources/examples/calculator-agent/client.py')],
        env,
        30_000,
      );
      expect(code, out).toBe(0);
      expect(out).toMatch(/calc-train-\d+: reward [01]\.0 pooled=True/);
      const status = StatusSchema.parse(await admin(w.url, 'GET', '/swarm/v1/status'));
      expect(status.clients.find((c) => c.clientId === 'py-test')?.counters.ended).toBe(4);
      // Concurrent, like the TypeScript clients: every episode of the group was open before any had ended.
      const list = z
        .object({ episodes: z.array(EpisodeSummarySchema) })
        .parse(await admin(w.url, 'GET', '/swarm/v1/episodes'));
      const mine = list.episodes.filter((e) => e.clientId === 'py-test');
      expect(mine).toHaveLength(4);
      const firstEnd = Math.min(...mine.map((e) => e.finishedAt ?? Infinity));
      expect(Math.max(...mine.map((e) => e.createdAt))).toBeLessThan(firstEnd);
    } finally {
      await w.stop();
    }
  }, 60_000);
});
