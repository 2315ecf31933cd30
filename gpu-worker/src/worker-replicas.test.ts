// Integration: a real worker with the built-in model, its trainer engine and one rollout replica (a
// second engine process, role replica), weights synced over gloo on loopback. Synchronous: every step's
// new weights reach the replica before it generates again, status and step metrics carry the replica and
// the run health. The replica is then killed: calls keep being answered (the trainer's engine serves
// while no replica is alive), the replica restarts and is synced to the current weights. Asynchronous:
// claims and generation go on during updates, and the staleness bound holds — with new weights swapped
// in under running generations (the default) or, `--inflight finish`, applied once they have finished.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_MODEL_DIR } from './resources';
import { playGroup as play, swarmStatus as status, until } from './testing/swarm-play';
import { tempDir, TEST_TOKENS } from './testing/workers';
import { startWorker, type Worker } from './worker';

const playGroup = (url: string, taskId: string): Promise<void> =>
  play(url, taskId, { clientId: 'replicas', together: true, maxRetries: 5 });

function start(
  dir: string,
  extra: { async?: boolean; inflight?: 'swap' | 'finish'; engineProcs?: number },
  logs: string[],
): Promise<Worker> {
  return startWorker(
    {
      model: BUILTIN_MODEL_DIR,
      port: 0,
      runDir: join(dir, 'run'),
      threads: 1,
      seed: 1,
      rolloutReplicas: 1,
      replicaThreads: 1,
      syncTimeoutS: 60,
      ...extra,
      training: { strategy: 'C2', batch: 1, groupSize: 2, lr: 1e-3, checkpointEvery: 0, defaultMaxTokens: 12 },
    },
    { tokens: TEST_TOKENS, log: (l) => logs.push(l), sweepIntervalMs: 50 },
  );
}

describe('swarm worker with a rollout replica (synchronous)', () => {
  let w: Worker;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('aj-replicas-');
    w = await start(dir, {}, logs);
  }, 240_000);
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates on the replica, syncs it after every update, and survives its death', async () => {
    const s0 = await status(w.url);
    expect(s0.serving?.rollout?.replicas).toMatchObject([{ index: 0, healthy: true, weightVersion: 0 }]);
    const pid = s0.serving!.rollout!.replicas[0]!.pid!;
    expect(pid).not.toBe(w.engine.pid);

    await playGroup(w.url, 'a');
    const s1 = await until(
      () => status(w.url),
      (s) => s.step === 1 && s.serving?.rollout?.replicas[0]?.weightVersion === 1,
    );
    expect(s1.serving!.completed).toBeGreaterThanOrEqual(2);
    const health = s1.lastStep?.health;
    expect(health?.stalenessMax).toBe(0); // synchronous: every token from the weights it trains
    expect(health?.stalenessHistogram[0]).toBeGreaterThan(0);
    expect(health?.syncMs).toBeGreaterThan(0);
    expect(health?.replicas).toHaveLength(1);

    process.kill(pid, 'SIGKILL');
    await playGroup(w.url, 'bb'); // answered meanwhile: by the trainer's engine or the restarted replica
    const s2 = await until(
      () => status(w.url),
      (s) => s.step === 2 && s.serving?.rollout?.replicas[0]?.healthy === true,
    );
    const replica = s2.serving!.rollout!.replicas[0]!;
    expect(replica.pid).not.toBe(pid);
    expect(replica.restarts).toBe(1);
    expect(replica.weightVersion).toBe(2);
    expect(logs.join('\n')).not.toMatch(/weight sync: the trainer's push failed/);
  }, 240_000);
});

describe('swarm worker with a rollout replica (asynchronous)', () => {
  let w: Worker;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('aj-async-');
    w = await start(dir, { async: true }, logs);
  }, 240_000);
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps claiming and generating during updates and holds the staleness bound', async () => {
    for (const task of ['a', 'bb', 'ccc']) await playGroup(w.url, task);
    const s = await until(
      () => status(w.url),
      (x) => x.step === 3 && x.serving?.rollout?.replicas[0]?.weightVersion === 3,
    );
    expect(s.serving?.rollout?.async).toBe(true);
    expect(s.lastStep?.health?.stalenessMax).toBeLessThanOrEqual(s.config.stalenessBound);
    expect(s.counters.droppedEpisodes).toBe(0);
  }, 240_000);
});

describe('swarm worker with a rollout replica (asynchronous, --inflight finish)', () => {
  let w: Worker;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('aj-finish-');
    w = await start(dir, { async: true, inflight: 'finish' }, logs);
  }, 240_000);
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes running generations on the old weights, then swaps, and keeps training', async () => {
    await playGroup(w.url, 'a');
    // Generations run while the first update's weights reach the replica: they finish first.
    await Promise.all(['bb', 'ccc'].map((task) => playGroup(w.url, task)));
    const s = await until(
      () => status(w.url),
      (x) => x.step === 3 && x.serving?.rollout?.replicas[0]?.weightVersion === 3,
    );
    expect(s.serving?.rollout).toMatchObject({ async: true, inflight: 'finish', syncFailures: 0 });
    expect(s.lastStep?.health?.stalenessMax).toBeLessThanOrEqual(s.config.stalenessBound);
    expect(s.counters.droppedEpisodes).toBe(0);
    expect(logs.join('\n')).not.toMatch(/weight sync: the trainer's push failed/);
  }, 240_000);
});

describe('swarm worker with 2 FSDP ranks and a rollout replica', () => {
  let w: Worker;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('aj-fsdp-replica-');
    w = await start(dir, { engineProcs: 2 }, logs);
  }, 300_000);
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps no inference copy on rank 0: the replica generates, the sync gathers from the shards', async () => {
    expect(w.engine.info).toMatchObject({ worldSize: 2, inferenceCopyBytes: 0 });
    await playGroup(w.url, 'a');
    const s = await until(
      () => status(w.url),
      (x) => x.step === 1 && x.serving?.rollout?.replicas[0]?.weightVersion === 1,
      180_000,
    );
    expect(s.serving?.rollout?.syncFailures).toBe(0);
    expect(s.lastStep?.trainedTokens).toBeGreaterThan(0);
  }, 300_000);
});
