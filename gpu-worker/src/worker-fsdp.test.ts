// Integration: a real worker whose engine runs as 2 FSDP ranks (torchrun, gloo on this CPU) with the
// built-in model. It trains a step and checkpoints; then rank 1 is frozen, a second update starts and
// waits in its first collective, and rank 1 is killed: the update fails with the rank error (its
// episodes stay pooled), the engine exits, and the worker restarts it from the last checkpoint and
// trains the pooled episodes on the restarted ranks.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playGroup as play, swarmStatus as status, until } from './testing/swarm-play';
import { startBuiltinWorker, tempDir } from './testing/workers';
import type { Worker } from './worker';

const playGroup = (url: string, taskId: string): Promise<void> => play(url, taskId, { clientId: 'fsdp' });

describe('swarm worker with a 2-rank FSDP engine', () => {
  let w: Worker;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('aj-fsdp-');
    w = await startBuiltinWorker(
      dir,
      {
        engineProcs: 2,
        training: { strategy: 'C2', batch: 1, groupSize: 2, lr: 1e-4, checkpointEvery: 1, defaultMaxTokens: 12 },
      },
      { log: (l) => logs.push(l), sweepIntervalMs: 50 },
    );
  }, 240_000);
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('restarts from the last checkpoint when a rank dies mid-step, keeping the interrupted update pooled', async () => {
    const info = w.engine.info;
    expect(info?.worldSize).toBe(2);
    const follower = info?.rankPids?.[1];
    expect(follower).toEqual(expect.any(Number));
    await playGroup(w.url, 'g1');
    await until(
      () => status(w.url),
      (x) => x.step === 1 && x.lastCheckpoint?.step === 1,
    );

    process.kill(follower!, 'SIGSTOP'); // rank 1 stops answering; rank 0 still serves generation
    await playGroup(w.url, 'g2');
    await until(
      () => w.swarm.trainer.updating,
      (u) => u,
      30_000,
    ); // the update is waiting in its first collective
    process.kill(follower!, 'SIGKILL');

    const s = await until(
      () => status(w.url),
      (x) => x.engine.restarts === 1 && x.state === 'running',
      180_000,
    );
    expect(logs.join('\n')).toMatch(
      /update interrupted, its episodes stay pooled: .*failed across the engine's 2 ranks/,
    );
    expect(s.step).toBeGreaterThanOrEqual(1);
    expect(w.engine.info?.rankPids).not.toContain(follower);
    // the pooled g2 episodes train on the restarted ranks
    const after = await until(
      () => status(w.url),
      (x) => x.step === 2,
      120_000,
    );
    expect(after.weightVersion).toBe(2);
  }, 420_000);
});
