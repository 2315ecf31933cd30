// Multi-model integration: two real workers (built-in model each, own run dir, C1 with batch 2 and a
// batch-mean REINFORCE baseline, since every round is a new task), the proposer on one and the solver
// on the other. Rounds played in-process and by client.ts as a child process; both workers count the
// ended episodes with the client's rewards and each trains (step ≥ 1); a failing role aborts both.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SwarmClient } from '../../../src/sdk/index';
import {
  admin,
  REPO_ROOT,
  startWorkerProcess,
  TOKENS,
  type WorkerProcess,
} from '../../../src/sdk/testing/worker-process';
import { fetchPolicy } from '../fetch-policy';
import { generateProposerTasks } from './proposal';
import { playRound, type PolicyFactory, type RoundResult } from './round';

const WORKER_ARGS = ['--strategy', 'C1', '--batch', '2', '--algo', 'reinforce', '--max-tokens', '32'];
/** Rounds are played until both workers have stepped (an all-equal batch carries no signal), at most this many. */
const MAX_ROUNDS = 48;

let proposerWorker: WorkerProcess;
let solverWorker: WorkerProcess;
beforeAll(async () => {
  [proposerWorker, solverWorker] = await Promise.all([
    startWorkerProcess(WORKER_ARGS),
    startWorkerProcess(WORKER_ARGS),
  ]);
});
afterAll(async () => {
  await Promise.all([proposerWorker?.stop(), solverWorker?.stop()]);
});

const EpisodeDetailSchema = z.object({
  episode: z.object({ status: z.string(), reward: z.number().optional(), clientId: z.string() }),
});
const episodeOn = async (w: WorkerProcess, id: string): Promise<z.infer<typeof EpisodeDetailSchema>['episode']> =>
  EpisodeDetailSchema.parse(await admin(w.url, 'GET', `/swarm/v1/episodes/${id}`)).episode;

const clientFor = (w: WorkerProcess, id: string): SwarmClient =>
  new SwarmClient({
    url: w.url,
    joinToken: TOKENS.join,
    clientId: id,
    retry: { initialDelayMs: 50, maxDelayMs: 500, deadlineMs: 30_000 },
  });

async function waitForStep(c: SwarmClient, step: number, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await c.status();
    if (s.step >= step || Date.now() > until) return s.step;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('proposer and solver on two workers', () => {
  it('routes each role to its own worker, ends both episodes with their rewards, and both models train', async () => {
    const clients = {
      proposer: clientFor(proposerWorker, 'ps-proposer'),
      solver: clientFor(solverWorker, 'ps-solver'),
    };
    const tasks = generateProposerTasks(MAX_ROUNDS, 7);
    const results: RoundResult[] = [];
    for (const task of tasks) {
      results.push(
        await playRound(clients, task, ({ baseUrl, apiKey, model, signal }) =>
          fetchPolicy({ baseUrl, apiKey, model, signal, maxTokens: 32 }),
        ),
      );
      const [p, s] = await Promise.all([clients.proposer.status(), clients.solver.status()]);
      if (results.length % 2 === 0 && p.step >= 1 && s.step >= 1) break;
    }
    const rounds = results.length;
    for (const r of results) {
      const p = await episodeOn(proposerWorker, r.proposer.episodeId);
      const s = await episodeOn(solverWorker, r.solver.episodeId);
      expect(p).toMatchObject({ status: 'ended', reward: r.proposer.score.reward, clientId: 'ps-proposer' });
      expect(s).toMatchObject({ status: 'ended', reward: r.solver.score.reward, clientId: 'ps-solver' });
      expect(r.proposer.score.reward).toBe(r.proposal.ok ? 0.5 + (r.solver.score.success ? 0.5 : 0) : 0);
    }
    const [ps, ss] = await Promise.all([clients.proposer.status(), clients.solver.status()]);
    // Each worker saw exactly its own role's episodes: one per round.
    expect(ps.counters.ended).toBe(rounds);
    expect(ss.counters.ended).toBe(rounds);
    expect(ps.clients.map((c) => c.clientId)).toEqual(['ps-proposer']);
    expect(ss.clients.map((c) => c.clientId)).toEqual(['ps-solver']);
    // C1 with batch 2: each worker updates its own model independently.
    const [pStep, sStep] = await Promise.all([
      waitForStep(clients.proposer, 1, 10_000),
      waitForStep(clients.solver, 1, 10_000),
    ]);
    expect(pStep).toBeGreaterThanOrEqual(1);
    expect(sStep).toBeGreaterThanOrEqual(1);
    const [pAfter, sAfter] = await Promise.all([clients.proposer.status(), clients.solver.status()]);
    expect(pAfter.weightVersion).toBeGreaterThanOrEqual(1);
    expect(sAfter.weightVersion).toBeGreaterThanOrEqual(1);
    console.log(
      `${rounds} rounds; proposer: step ${pAfter.step} rewards ${results.map((r) => r.proposer.score.reward).join(',')}; solver: step ${sAfter.step} rewards ${results.map((r) => r.solver.score.reward).join(',')}; proposals ${results.map((r) => JSON.stringify(r.question)).join(' ')}`,
    );
  });

  it('runs client.ts from its environment variables for a bounded number of rounds', async () => {
    const before = await Promise.all([clientFor(proposerWorker, 'x').status(), clientFor(solverWorker, 'y').status()]);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'resources/examples/proposer-solver/client.ts')],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          AGENTJET_PROPOSER_URL: proposerWorker.url,
          AGENTJET_SOLVER_URL: solverWorker.url,
          AGENTJET_JOIN_TOKEN: TOKENS.join,
          AGENTJET_MAX_EPISODES: '2',
          AGENTJET_MAX_TOKENS: '32',
          AGENTJET_CLIENT_ID: 'ps-child',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, out).toBe(0);
    const lines = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(lines, out).toHaveLength(2);
    const after = await Promise.all([clientFor(proposerWorker, 'x').status(), clientFor(solverWorker, 'y').status()]);
    expect(after[0].counters.ended - before[0].counters.ended).toBe(2);
    expect(after[1].counters.ended - before[1].counters.ended).toBe(2);
    expect(after[0].clients.some((c) => c.clientId === 'ps-child-proposer')).toBe(true);
    expect(after[1].clients.some((c) => c.clientId === 'ps-child-solver')).toBe(true);
  });

  it('aborts both episodes, on both workers, when the solver role throws', async () => {
    const clients = {
      proposer: clientFor(proposerWorker, 'ps-proposer'),
      solver: clientFor(solverWorker, 'ps-solver'),
    };
    const before = await Promise.all([clients.proposer.status(), clients.solver.status()]);
    const policy: PolicyFactory = (ctx) => {
      if (ctx.baseUrl.startsWith(solverWorker.url)) return () => Promise.reject(new Error('solver env crashed'));
      return fetchPolicy({
        baseUrl: ctx.baseUrl,
        apiKey: ctx.apiKey,
        model: ctx.model,
        signal: ctx.signal,
        maxTokens: 32,
      });
    };
    await expect(playRound(clients, generateProposerTasks(1, 9)[0]!, policy)).rejects.toThrow('solver env crashed');
    const after = await Promise.all([clients.proposer.status(), clients.solver.status()]);
    expect(after.map((s, i) => s.counters.aborted - before[i]!.counters.aborted)).toEqual([1, 1]);
    expect(after.map((s, i) => s.counters.ended - before[i]!.counters.ended)).toEqual([0, 0]);
  });
});
