// The swarm core on its own, without HTTP: an EngineHost over a fake engine (named as one), a
// real pool in a temporary folder and an injected clock. Claims and refusals by state, calls
// counted in flight, ends that wait for them, eval results per weight version, expiry and client
// liveness, run-time settings, and the weight version read from the engine.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SwarmEventSchema, type SwarmEvent } from '../../../src/shared/swarm-events';
import { conversation, say } from '../../../src/shared/timeline/testing/scenes';
import type { RecordedCall } from '../rollout/record-call';
import { fakeEngineFactory } from '../testing/fake-engine';
import { tempDir } from '../testing/workers';
import { WorkerConfigSchema, type WorkerConfigInput } from '../worker-config';
import { EngineHost } from '../engine/engine-host';
import { SwarmError } from '../errors';
import { DurablePool } from './pool';
import { runFiles } from './run-dir';
import { Swarm } from './swarm';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(config: Partial<WorkerConfigInput> = {}, pauseGeneration = async (): Promise<void> => undefined) {
  const dir = tempDir('aj-swarm-');
  const files = runFiles(dir);
  const { factory, engines } = fakeEngineFactory();
  const engine = new EngineHost({ factory, load: { path: '/fake' }, checkpoint: () => null });
  await engine.start();
  const pool = await DurablePool.open(files.pool, 0);
  const clock = { t: 1_000_000 };
  const gate = { pause: pauseGeneration, resume: () => undefined };
  const swarm = new Swarm({
    config: WorkerConfigSchema.parse({ runDir: dir, ...config }),
    modelName: 'fake-model',
    secret: randomBytes(32),
    files,
    engine,
    generation: gate,
    pool,
    saved: null,
    now: () => clock.t,
    sweepIntervalMs: 3_600_000,
  });
  const events: SwarmEvent[] = [];
  swarm.onEvent((e) => events.push(e));
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => engine.dispose(),
    () => pool.dispose(),
    () => swarm.dispose(),
  );
  return { swarm, engine, fake: engines, pool, clock, events, dir };
}

const claim = (s: Swarm, clientId = 'c1', kind: 'train' | 'eval' = 'train') =>
  s.claim({ clientId, kind, taskId: 'task-1' }, 'http://x/v1');

/** A recorded call of episode `episodeId`, as the call-recording path returns it. */
function recorded(episodeId: string, callIndex: number, weightVersion = 0): RecordedCall {
  const [timeline] = conversation(episodeId, [{ reply: say('hi'), weightVersion }]);
  return {
    timeline: { ...timeline!, callIndex },
    message: timeline!.output,
    finishReason: 'stop',
    promptTokens: 3,
    completionTokens: timeline!.outputIds.length,
    engineMs: 1,
    weightVersion,
    malformedToolCalls: 0,
    attempts: 1,
    cachedTokens: 0,
  };
}

const refusedCode = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof SwarmError ? `${err.status} ${err.code}` : String(err);
  }
};

describe('Swarm', () => {
  it('claims an episode with a signed key that names it, and announces it', async () => {
    const { swarm, events } = await setup();
    const c = claim(swarm);
    expect(c).toMatchObject({
      baseUrl: 'http://x/v1',
      model: 'fake-model',
      weightVersion: 0,
      kind: 'train',
      timeoutS: 300,
    });
    expect(swarm.episodeForKey(c.apiKey).id).toBe(c.episodeId);
    expect(swarm.keyNamesEpisode(c.apiKey, c.episodeId)).toBe(true);
    expect(refusedCode(() => swarm.episodeForKey(`${c.apiKey.slice(0, -2)}AA`))).toMatch(/^401 /);
    expect(events.map((e) => e.type)).toEqual(['client_joined', 'episode_started']);
    expect(swarm.status().counters.claimed).toBe(1);
  });

  it('refuses claims while paused or stopping, with a retry hint, and counts the refusals', async () => {
    const { swarm } = await setup();
    swarm.pause();
    expect(swarm.state).toBe('paused');
    expect(refusedCode(() => claim(swarm))).toBe('503 paused');
    swarm.resume();
    expect(claim(swarm).episodeId).toMatch(/^ep_/);
    swarm.beginStop('shutdown');
    expect(refusedCode(() => claim(swarm))).toBe('503 stopping');
    expect(swarm.status().clients[0]?.counters).toMatchObject({ claimed: 1, refused: 2 });
  });

  it('holds a claim during an update and answers it on the new weights; past the hold, or for a gone client, claims nothing', async () => {
    // The update waits for running generations (the gate) before it trains: keep it there until released.
    let letUpdateGo = (): void => undefined;
    const generationsDone = new Promise<void>((r) => (letUpdateGo = r));
    const { swarm, events } = await setup(
      { training: { strategy: 'C1', batch: 2, algo: 'reinforce' } },
      () => generationsDone,
    );
    for (const reward of [1, 0]) {
      const c = claim(swarm);
      const ep = swarm.episodeForKey(c.apiKey);
      swarm.endCall(ep, recorded(c.episodeId, swarm.beginCall(ep)));
      await swarm.end(c.episodeId, { taskId: 'task-1', reward });
    }
    for (let i = 0; i < 200 && swarm.state !== 'updating'; i++) await new Promise((r) => setTimeout(r, 5));
    expect(swarm.state).toBe('updating');
    await expect(
      swarm.claimHeld({ clientId: 'c2', kind: 'train' }, 'http://x/v1', { holdMs: 20 }),
    ).rejects.toMatchObject({ status: 503, code: 'updating' });
    const gone = new AbortController();
    const abandoned = swarm.claimHeld({ clientId: 'c3', kind: 'train' }, 'http://x/v1', { signal: gone.signal });
    gone.abort();
    await expect(abandoned).rejects.toMatchObject({ status: 499 });
    const held = swarm.claimHeld({ clientId: 'c4', kind: 'train' }, 'http://x/v1');
    let answered = false;
    void held.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(answered).toBe(false);
    letUpdateGo();
    const c = await held;
    expect(c.weightVersion).toBe(1);
    expect(events.findIndex((e) => e.type === 'episode_started' && e.episodeId === c.episodeId)).toBeGreaterThan(
      events.findIndex((e) => e.type === 'state' && e.reason === 'update finished'),
    );
    expect(swarm.status().counters.claimed).toBe(3);
  });

  it('ends an episode after its calls in flight, pools train episodes, records eval results per weight version', async () => {
    const { swarm, pool, events } = await setup({ training: { strategy: 'C1', batch: 1000 } });
    const c = claim(swarm);
    const ep = swarm.episodeForKey(c.apiKey);
    const index = swarm.beginCall(ep);
    let ended = false;
    const ending = swarm.end(c.episodeId, { taskId: 'task-1', reward: 1 }).then((r) => ((ended = true), r));
    await new Promise((r) => setTimeout(r, 20));
    expect(ended).toBe(false);
    swarm.endCall(ep, recorded(c.episodeId, index));
    await expect(ending).resolves.toEqual({ episodeId: c.episodeId, accepted: true, pooled: true, calls: 1 });
    expect(pool.size).toBe(1);
    expect(refusedCode(() => swarm.episodeForKey(c.apiKey))).toBe('409 episode_ended');
    expect(swarm.status().counters).toMatchObject({ ended: 1, calls: 1 });

    const e = claim(swarm, 'c1', 'eval');
    const eep = swarm.episodeForKey(e.apiKey);
    swarm.endCall(eep, recorded(e.episodeId, swarm.beginCall(eep)));
    await swarm.end(e.episodeId, { taskId: 'task-1', reward: 0.5, success: true });
    expect(pool.size).toBe(1);
    expect(swarm.evalResults()).toEqual([{ weightVersion: 0, episodes: 1, rewardMean: 0.5, successRate: 1 }]);
    expect(events.some((x) => x.type === 'eval_result')).toBe(true);
  });

  it("keeps a claim's role through the pool (REINFORCE's baseline is per role), and across a reopen of the journal", async () => {
    const { swarm, pool, dir, events } = await setup({ training: { strategy: 'C1', batch: 1000 } });
    for (const role of ['proposer', 'solver', undefined]) {
      const c = swarm.claim({ clientId: 'c1', kind: 'train', taskId: 't', ...(role ? { role } : {}) }, 'http://x/v1');
      const ep = swarm.episodeForKey(c.apiKey);
      swarm.endCall(ep, recorded(c.episodeId, swarm.beginCall(ep)));
      await swarm.end(c.episodeId, { taskId: 't', reward: 1 });
    }
    expect(pool.list().map((e) => e.role)).toEqual(['proposer', 'solver', undefined]);
    // The start event carries it too, through the schema the workbench reads events with (its episode store).
    const started = events.filter((e) => e.type === 'episode_started').map((e) => SwarmEventSchema.parse(e));
    expect(started.map((e) => (e.type === 'episode_started' ? e.role : null))).toEqual([
      'proposer',
      'solver',
      undefined,
    ]);
    expect(
      swarm
        .episodeSummaries({})
        .map((e) => e.role)
        .sort(),
    ).toEqual(['proposer', 'solver', undefined]);
    const reopened = await DurablePool.open(runFiles(dir).pool, 0);
    cleanups.push(() => reopened.dispose());
    expect(reopened.list().map((e) => e.role)).toEqual(['proposer', 'solver', undefined]);
  });

  it('expires idle episodes and aborts the open episodes of a client that goes silent', async () => {
    const { swarm, clock, events } = await setup({ episodeTimeoutS: 10, clientTimeoutS: 60 });
    const a = claim(swarm, 'idle');
    clock.t += 11_000;
    swarm.sweep();
    expect(refusedCode(() => swarm.episodeForKey(a.apiKey))).toBe('409 episode_expired');
    const b = claim(swarm, 'quiet');
    swarm.episodeForKey(b.apiKey);
    clock.t += 5_000;
    swarm.beginCall(swarm.getEpisode(b.episodeId));
    clock.t += 61_000;
    swarm.sweep();
    // A call in flight keeps the episode from expiring, but its silent client is gone.
    expect(events.some((e) => e.type === 'client_left' && e.clientId === 'quiet')).toBe(true);
    expect(swarm.getEpisode(b.episodeId).status).toBe('aborted');
    expect(swarm.status().counters).toMatchObject({ expired: 1, aborted: 1 });
  });

  it('answers the samples an update trained of an episode, unchanged by later settings; a preview before', async () => {
    const { swarm, events } = await setup({
      training: { strategy: 'C1', batch: 2, algo: 'reinforce', merge: 'linear' },
    });
    const ids: string[] = [];
    for (const reward of [1, 0]) {
      const c = claim(swarm);
      const ep = swarm.episodeForKey(c.apiKey);
      swarm.endCall(ep, recorded(c.episodeId, swarm.beginCall(ep)));
      expect(swarm.mergedSamples(c.episodeId).trained).toBeNull();
      await swarm.end(c.episodeId, { taskId: 'task-1', reward });
      ids.push(c.episodeId);
    }
    for (let i = 0; i < 500 && !events.some((e) => e.type === 'step'); i++) await new Promise((r) => setTimeout(r, 10));
    const step = events.find((e) => e.type === 'step');
    expect(step?.type === 'step' && step.episodeIds).toEqual(ids);
    const before = swarm.mergedSamples(ids[0]!);
    expect(before.trained).toEqual({
      step: 1,
      weightVersion: 1,
      advantage: 0.5,
      algo: 'reinforce',
      merge: 'linear',
      level: 'token',
    });
    expect(before.samples).toHaveLength(1);
    expect(before.samples[0]!.lossMask).toContain(1);
    swarm.updateTraining({ merge: 'none', level: 'text' });
    expect(swarm.mergedSamples(ids[0]!)).toEqual(before);
  });

  it('previews, for --merge tree, what an update trains of each episode of a task group: its packed group', async () => {
    // groupSize 4: the group of three waits in the pool while its previews are read; 3 then trains it
    const { swarm, events } = await setup({
      training: { strategy: 'C2', batch: 1, groupSize: 4, algo: 'grpo', merge: 'tree' },
    });
    const ids: string[] = [];
    for (const [i, reward] of [1, 0, 0.25].entries()) {
      const c = claim(swarm);
      const ep = swarm.episodeForKey(c.apiKey);
      const steps = [{ reply: say(`Let me think about ${i} first.`) }, { reply: say(`It is ${i * 7}.`) }];
      for (const t of conversation(c.episodeId, steps)) {
        swarm.endCall(ep, { ...recorded(c.episodeId, 0), timeline: { ...t, callIndex: swarm.beginCall(ep) } });
      }
      await swarm.end(c.episodeId, { taskId: 'task-1', reward });
      ids.push(c.episodeId);
    }
    const previews = ids.map((id) => swarm.mergedSamples(id));
    expect(previews.map((p) => p.trained)).toEqual([null, null, null]);
    // the group's chains share the system and task prompt: the cost model packs them into one tree
    // (merging orders a batch's episodes by id, so the tree holds them in id order, not arrival order)
    const tree = previews[0]!.samples[0]!;
    expect(tree.kind === 'tree' && [...tree.episodeIds].sort()).toEqual([...ids].sort());
    swarm.updateTraining({ groupSize: 3 });
    for (let i = 0; i < 500 && !events.some((e) => e.type === 'step'); i++) await new Promise((r) => setTimeout(r, 10));
    ids.forEach((id, i) => {
      const trained = swarm.mergedSamples(id);
      expect(trained.trained).toMatchObject({ step: 1, merge: 'tree' });
      expect(trained.samples).toEqual(previews[i]!.samples);
      expect(trained.stats).toEqual(previews[i]!.stats);
    });
  });

  it('changes training settings at run time and reads the weight version from the engine', async () => {
    const { swarm, engine, events } = await setup();
    expect(swarm.updateTraining({ batch: 3, lr: 1e-5 })).toMatchObject({ batch: 3, lr: 1e-5, strategy: 'C2' });
    expect(swarm.status().config).toMatchObject({ batch: 3, lr: 1e-5 });
    expect(events.some((e) => e.type === 'state' && e.reason === 'config changed')).toBe(true);
    expect(swarm.weightVersion).toBe(0);
    const [t] = conversation('ep_x', [{ reply: say('x') }]);
    await engine.call('train_step', {
      samples: [
        {
          tokenIds: [...t!.promptIds, ...t!.outputIds],
          lossMask: [...t!.promptIds.map((): 0 => 0), ...t!.outputIds.map((): 1 => 1)],
          advantages: 1,
          rolloutLogprobs: [...t!.promptIds.map(() => 0), ...t!.outputLogprobs],
        },
      ],
      hyper: { lr: 1e-4 },
    });
    expect(swarm.weightVersion).toBe(1);
    expect(claim(swarm).weightVersion).toBe(1);
  });
});
