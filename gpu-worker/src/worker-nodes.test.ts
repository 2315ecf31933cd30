// A trainer group over two "nodes" on this machine (issue #21 §2): node 1 is started the way
// `agentjet worker --nnodes 2 --node-rank 1 --rdzv-endpoint H:P` starts it (startRankNode), node 0 is a
// real worker with the same flags and --node-rank 0; their launchers meet at torchrun's static rendezvous
// on a loopback port. The worker's engine is then 2 ranks, one per node, and trains a step. When the
// group ends (the worker stops), node 1 starts its ranks again, ready for the next group.
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse, Status } from '../../src/shared/swarm-protocol';
import { engineArgv } from './engine/engine-process';
import { nodesOf, startRankNode, type RankNode } from './engine/rank-node';
import { http, startBuiltinWorker, tempDir, TEST_TOKENS } from './testing/workers';
import type { Worker } from './worker';

async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });

describe('the trainer group over several nodes: options', () => {
  it("joins torchrun's static rendezvous with the node rank, and refuses what cannot work", () => {
    const nodes = { nnodes: 2, nodeRank: 1, endpoint: '10.0.0.5:29400' };
    expect(engineArgv(2, nodes)).toEqual([
      '-u',
      '-m',
      'torch.distributed.run',
      '--nnodes=2',
      '--node-rank=1',
      '--rdzv-backend=static',
      '--rdzv-endpoint=10.0.0.5:29400',
      '--nproc-per-node=2',
      '--monitor-interval=0.5',
      '-m',
      'agentjet_engine',
    ]);
    expect(engineArgv(1)).toEqual(['-u', '-m', 'agentjet_engine']);
    expect(nodesOf({ nnodes: 1, nodeRank: 0, rdzvEndpoint: 'h:1' })).toBeUndefined();
    expect(() => nodesOf({ nnodes: 2, nodeRank: 0 })).toThrow(/needs --rdzv-endpoint/);
    expect(() => nodesOf({ nnodes: 2, nodeRank: 2, rdzvEndpoint: 'h:1' })).toThrow(/below --nnodes/);
  });
});

describe('a worker whose engine spans two nodes over loopback', () => {
  let w: Worker | undefined;
  let node1: RankNode;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('aj-nodes-');
    const endpoint = `127.0.0.1:${await freePort()}`;
    node1 = startRankNode({
      nodes: { nnodes: 2, nodeRank: 1, endpoint },
      procs: 1,
      env: { AGENTJET_ENGINE_THREADS: '1' },
      log: (l) => logs.push(`node1: ${l}`),
    });
    w = await startBuiltinWorker(
      dir,
      {
        nnodes: 2,
        nodeRank: 0,
        rdzvEndpoint: endpoint,
        training: { strategy: 'C2', batch: 1, groupSize: 2, lr: 1e-4, checkpointEvery: 0, defaultMaxTokens: 12 },
      },
      { log: (l) => logs.push(l), sweepIntervalMs: 50 },
    );
  }, 300_000);
  afterAll(async () => {
    await w?.dispose();
    await node1?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trains a step on rank 0 (node 0) and rank 1 (node 1); node 1 restarts its ranks when the group ends', async () => {
    const worker = w!;
    expect(worker.engine.info?.worldSize).toBe(2);
    expect(new Set(worker.engine.info?.rankPids).size).toBe(2);
    expect(node1.starts).toBe(1);
    for (const reward of [1, 0]) {
      const claim = await http<ClaimResponse>(worker.url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'nodes', taskId: 't' },
      });
      expect(claim.status, JSON.stringify(claim.body)).toBe(201);
      const client = new OpenAI({ baseURL: claim.body.baseUrl, apiKey: claim.body.apiKey, maxRetries: 0 });
      await client.chat.completions.create({
        model: claim.body.model,
        messages: [{ role: 'user', content: 'What is 2 + 2?' }],
        max_tokens: 12,
      });
      const end = await http(worker.url, 'POST', `/swarm/v1/episodes/${claim.body.episodeId}/end`, {
        token: TEST_TOKENS.join,
        body: { taskId: 't', reward },
      });
      expect(end.status).toBe(200);
    }
    const s = await until(
      async () => (await http<Status>(worker.url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body,
      (x) => x.step === 1,
    );
    expect(s.lastStep?.trainedTokens).toBeGreaterThan(0);
    await worker.dispose();
    w = undefined;
    await until(
      () => node1.starts,
      (n) => n >= 2,
    ); // the group ended with node 0's engine: node 1's launcher is started again
  }, 300_000);
});
