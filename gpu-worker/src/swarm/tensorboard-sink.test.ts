// `--tensorboard DIR` on a worker with the fake engine: a training step (two episodes of one task with
// different rewards) and an eval episode end up in an events file that the `tensorboard` Python
// package reads back (EventAccumulator) with the step's figures, the merge statistics and the eval.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse, StepMetrics } from '../../../src/shared/swarm-protocol';
import { scriptedReply } from '../testing/scripted-replies';
import { readTensorBoardScalars } from '../testing/tensorboard-read';
import { http, startFakeWorker, tempDir, TEST_TOKENS, type TestWorker } from '../testing/workers';

describe('TensorBoard sink (fake engine, read back with the tensorboard package)', () => {
  let t: TestWorker;
  let tbDir: string;
  let step: StepMetrics | null = null;

  beforeAll(async () => {
    const dir = tempDir('aj-tb-');
    tbDir = join(dir, 'tb');
    t = await startFakeWorker(
      { training: { strategy: 'C1', batch: 2 }, tensorboardDir: tbDir },
      { engine: { reply: scriptedReply, stepMs: 1 }, dir },
    );
    t.worker.swarm.onEvent((e) => {
      if (e.type === 'step') step = e.metrics;
    });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(t.dir, { recursive: true, force: true });
  });

  const play = async (kind: 'train' | 'eval', reward: number, success: boolean): Promise<void> => {
    const c = (
      await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'tb', kind, taskId: 'task-1' },
      })
    ).body;
    await http(t.worker.url, 'POST', '/v1/chat/completions', {
      token: c.apiKey,
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: TEST_TOKENS.join,
      body: { taskId: 'task-1', reward, success },
    });
  };

  it('writes step, merge and eval scalars that TensorBoard reads back', async () => {
    await play('train', 1, true);
    await play('train', 0, false);
    const t0 = Date.now();
    while (step === null && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
    await play('eval', 0.5, true);
    await t.worker.dispose(); // closing the sink writes the pending eval
    expect(readdirSync(tbDir).filter((f) => f.startsWith('events.out.tfevents.'))).toHaveLength(1);
    const scalars = readTensorBoardScalars(tbDir);
    const s = step!;
    expect(scalars['reward/mean']).toEqual([[s.step, 0.5]]);
    expect(scalars['success_rate']).toEqual([[s.step, 0.5]]);
    expect(scalars['episodes']).toEqual([[s.step, 2]]);
    expect(scalars['train/trained_tokens']).toEqual([[s.step, s.trainedTokens]]);
    expect(scalars['loss/total']?.[0]?.[1]).toBeCloseTo(s.loss!, 5);
    // the two episodes of task-1 share their prompt: tree packing (the default) trains them as one sample
    expect(scalars['merge/samples_per_episode']).toEqual([[s.step, 0.5]]);
    expect(scalars['merge/compression_ratio']?.[0]?.[0]).toBe(s.step);
    expect(scalars['eval/success_rate']).toEqual([[1, 1]]);
    expect(scalars['eval/reward_mean']).toEqual([[1, 0.5]]);
  });
});
