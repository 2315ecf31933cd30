// The Trainer on its own, without HTTP (testing/trainer-rig.ts): a fake engine (named as one), a real durable
// pool in a temporary folder, the real client registry for sync agreements, and a fake host. Updates train
// ready batches and commit one step event, generation is paused around each update, stale and
// flat episodes are dropped, failures keep or drop the batch by cause, checkpoints and rollback.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrainingConfig } from '../../../src/shared/options/index';
import { FakeEngine } from '../testing/fake-engine';
import { cleanupRigs, episode, trainerRig } from '../testing/trainer-rig';
import { unavailable } from '../errors';

afterEach(cleanupRigs);

const setup = (config: Partial<TrainingConfig>, engine = new FakeEngine()) => trainerRig(config, engine);

describe('Trainer', () => {
  it('trains a ready batch: one step event with merge stats and episode ids, generation paused around it', async () => {
    const t = await setup({ strategy: 'C1', batch: 2, algo: 'reinforce' });
    await t.pool.add(episode('a', 1));
    await t.pool.add(episode('b', 0));
    t.trainer.poke();
    await t.until('a step', () => t.events.some((e) => e.type === 'step'));
    const step = t.events.find((e) => e.type === 'step');
    if (step?.type !== 'step') throw new Error('no step');
    expect(step.metrics).toMatchObject({
      step: 1,
      weightVersion: 1,
      episodes: 2,
      rewardMin: 0,
      rewardMax: 1,
      samples: 2,
    });
    expect(step.merge).toMatchObject({ episodes: 2, callsIn: 2, samplesOut: 2 });
    expect(step.episodeIds).toHaveLength(2);
    expect(t.trainer.step).toBe(1);
    expect(t.trainer.lastStep?.step).toBe(1);
    expect(t.engine.weightVersion).toBe(1);
    expect(t.pool.size).toBe(0);
    expect(t.host.counts.trainedEpisodes).toBe(2);
    expect(t.gate.log).toEqual(['pause', 'resume']);
    expect(t.host.states).toEqual(['update', 'update finished']);
    expect(t.steps.map((s) => [s.step, s.trained, s.episodes.length])).toEqual([[1, true, 2]]);
    // The hyper-parameters sent are the config's.
    const call = t.engine.calls.find((c) => c.method === 'train_step');
    expect(call?.params).toMatchObject({
      hyper: { lr: 1e-4, clipLow: 0.2, clipHigh: 0.28, klCoef: 0, maxGradNorm: 1, microBatchTokens: 4096 },
    });
  });

  it('does not update while the worker does not run, and does once it does', async () => {
    const t = await setup({ strategy: 'C1', batch: 1, algo: 'reinforce' });
    t.host.running = false;
    await t.pool.add(episode('a', 1));
    t.trainer.poke();
    await t.until('progress reported', () => t.events.some((e) => e.type === 'batch_progress'));
    await new Promise((r) => setTimeout(r, 30));
    expect(t.events.some((e) => e.type === 'step')).toBe(false);
    t.host.running = true;
    t.trainer.poke();
    await t.until('a step', () => t.events.some((e) => e.type === 'step'));
  });

  it('drops zero-variance groups (C3) and stale episodes', async () => {
    const t = await setup({ strategy: 'C3', batch: 1, groupSize: 2, maxStaleness: 0 });
    await t.pool.add(episode('flat', 1));
    await t.pool.add(episode('flat', 1));
    t.trainer.poke();
    await t.until('flat group dropped', () =>
      t.events.some((e) => e.type === 'episodes_dropped' && e.reason === 'zero_variance'),
    );
    expect(t.host.counts.droppedEpisodes).toBe(2);
    t.engine.weightVersion = 3;
    await t.pool.add(episode('old', 1, 0));
    await t.pool.add(episode('old', 0, 0));
    t.trainer.poke();
    await t.until('stale dropped', () => t.events.some((e) => e.type === 'episodes_dropped' && e.reason === 'stale'));
    expect(t.pool.size).toBe(0);
    expect(t.trainer.step).toBe(0);
  });

  it('keeps the batch pooled when the engine is unavailable, drops it on other failures', async () => {
    const engine = new FakeEngine();
    const real = engine.call.bind(engine);
    let fail: Error | null = unavailable('engine_unavailable', 'restarting', 5);
    engine.call = ((method, params) =>
      method === 'train_step' && fail ? Promise.reject(fail) : real(method, params)) as FakeEngine['call'];
    const t = await setup({ strategy: 'C1', batch: 2, algo: 'reinforce' }, engine);
    await t.pool.add(episode('a', 1));
    await t.pool.add(episode('b', 0));
    t.trainer.poke();
    await t.until('warned', () => t.events.some((e) => e.type === 'log' && e.level === 'warn'));
    expect(t.pool.size).toBe(2);
    fail = new Error('boom');
    t.trainer.poke();
    await t.until('dropped', () => t.events.some((e) => e.type === 'episodes_dropped' && e.reason === 'train_error'));
    expect(t.pool.size).toBe(0);
    expect(t.gate.log.filter((x) => x === 'pause').length).toBe(t.gate.log.filter((x) => x === 'resume').length);
  });

  it('an update without signal keeps the step; checkpoints every N steps (engine save + state.json) and rolls back to one', async () => {
    const t = await setup({ strategy: 'C1', batch: 1, algo: 'reinforce', checkpointEvery: 1 });
    await t.pool.add(episode('alone', 1));
    t.trainer.poke();
    await t.until('an update without signal', () => t.steps.length === 1);
    expect(t.steps[0]).toMatchObject({ step: 0, trained: false, weightVersion: 0 });
    expect(t.trainer.step).toBe(0);
    expect(t.events.some((e) => e.type === 'checkpoint')).toBe(false);
    t.setConfig({ batch: 2 });
    await t.pool.add(episode('a', 1));
    await t.pool.add(episode('b', 0));
    t.trainer.poke();
    await t.until('checkpoint', () => t.events.some((e) => e.type === 'checkpoint'));
    const saved = JSON.parse(readFileSync(t.files.state, 'utf8')) as {
      step: number;
      weightVersion: number;
      checkpoint: string;
    };
    expect(saved).toMatchObject({ step: 1, weightVersion: 1 });
    expect(existsSync(join(t.dir, saved.checkpoint, 'fake.json'))).toBe(true);
    expect(t.trainer.lastCheckpoint).toMatchObject({ step: 1, weightVersion: 1 });
    t.setConfig({ checkpointEvery: 0 });
    await t.pool.add(episode('c', 1));
    await t.pool.add(episode('d', 0));
    t.trainer.poke();
    await t.until('second step', () => t.trainer.step === 2);
    expect(t.pool.size).toBe(0);
    t.trainer.rollbackToCheckpoint();
    expect(t.trainer.step).toBe(1);
    expect(t.pool.size).toBe(2);
    const info = await t.trainer.checkpoint('request');
    expect(info.step).toBe(1);
  });
});
