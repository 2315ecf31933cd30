// A remote slot against a real worker (scripted engine): each trial resets the worker to a new run with
// the trial's settings and starts it, and releasing the trial pauses it — all through the WorkerClient.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedReply } from '../../../gpu-worker/src/testing/scripted-replies';
import { startFakeWorker, TEST_TOKENS, type TestWorker } from '../../../gpu-worker/src/testing/workers';
import type { TrialSetup } from '../../shared/campaign/spec';
import { WorkerClient } from '../worker-client';
import { RemoteSlot } from './slots';

const setup = (batch: number, seed: number): TrialSetup => ({
  task: 'calculator',
  client: 'openai',
  model: 'builtin',
  clients: 1,
  mix: undefined,
  training: { batch },
  seed,
  threads: undefined,
  episodeTimeoutS: undefined,
  workers: null,
});

describe('RemoteSlot', () => {
  let t: TestWorker;
  beforeAll(async () => {
    t = await startFakeWorker({ training: { strategy: 'C1', batch: 2 } }, { engine: { reply: scriptedReply } });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('resets the worker per trial with its settings, starts it, and pauses it on release', async () => {
    const slot = new RemoteSlot({ url: t.worker.url, adminToken: TEST_TOKENS.admin, joinToken: TEST_TOKENS.join });
    const trial = await slot.start(setup(3, 7), '/unused', 'trial-1');
    expect(trial.runDir).toMatch(/trial-1$/);
    expect(trial.status.config.batch).toBe(3);
    expect(trial.status.state).not.toBe('paused');
    await trial.release();
    const client = new WorkerClient(t.worker.url, TEST_TOKENS.admin);
    expect((await client.status()).state).toBe('paused');
    const second = await slot.start(setup(4, 8), '/unused', 'trial-2');
    expect([second.runDir.endsWith('trial-2'), second.status.config.batch]).toEqual([true, 4]);
    await second.release();
  });
});
