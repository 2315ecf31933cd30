// Episodes, clients, training, events and faults against a worker with the fake engine.
import { rmSync } from 'node:fs';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SwarmEvent } from '../../../src/shared/swarm-events';
import type { ClaimResponse, Status } from '../../../src/shared/swarm-protocol';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, tempDir, TEST_TOKENS, type TestWorker } from '../testing/workers';

const running: TestWorker[] = [];
const dirs: string[] = [];
function runDir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}
async function start(...args: Parameters<typeof startFakeWorker>): Promise<TestWorker> {
  const t = await startFakeWorker(args[0], { engine: { reply: scriptedReply, ...args[1]?.engine }, ...args[1] });
  running.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const join = TEST_TOKENS.join;
const admin = TEST_TOKENS.admin;

/** Claims an episode, retrying while the server answers 503 (as an SDK does, with short waits). */
async function claim(t: TestWorker, body: Record<string, unknown> = {}): Promise<ClaimResponse> {
  const res = await until(
    () =>
      http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
        token: join,
        body: { clientId: 'c1', ...body },
      }),
    (r) => r.status !== 503,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function chat(c: ClaimResponse, content = 'hi'): Promise<OpenAI.Chat.ChatCompletion> {
  const client = new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 });
  return client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content }] });
}

async function playAndEnd(
  t: TestWorker,
  taskId: string,
  reward: number,
  kind: 'train' | 'eval' = 'train',
  clientId = 'c1',
): Promise<ClaimResponse> {
  const c = await claim(t, { taskId, kind, clientId });
  await chat(c);
  const end = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
    token: join,
    body: { taskId, reward, success: reward > 0 },
  });
  expect(end.status, JSON.stringify(end.body)).toBe(200);
  return c;
}

const status = async (t: TestWorker): Promise<Status> =>
  (await http<Status>(t.worker.url, 'GET', '/swarm/v1/status', { token: admin })).body;

async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('episodes, keys and clients', () => {
  it('signs keys, ends durably, refuses double end and calls after end, aborts and expires', async () => {
    const t = await start();
    const c = await claim(t, { taskId: 'a' });
    expect(c.apiKey).toMatch(/^ajk1\.ep_/);
    expect(c.baseUrl).toBe(`${t.worker.url}/v1`);
    await chat(c);
    const end = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: join,
      body: { taskId: 'a', reward: 0.5, metrics: { turns: 1 } },
    });
    expect(end.body).toEqual({ episodeId: c.episodeId, accepted: true, pooled: true, calls: 1 });
    const again = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: join,
      body: { taskId: 'a', reward: 0.5 },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'episode_ended' } });

    const ab = await claim(t);
    await chat(ab);
    expect(
      (
        await http(t.worker.url, 'POST', `/swarm/v1/episodes/${ab.episodeId}/abort`, {
          token: ab.apiKey,
          body: { reason: 'env crashed' },
        })
      ).status,
    ).toBe(200);
    await expect(chat(ab)).rejects.toMatchObject({ status: 409, code: 'episode_aborted' });

    const ex = await claim(t, { timeoutS: 0.1 });
    await until(
      () => status(t),
      (x) => x.counters.expired === 1,
    );
    await expect(chat(ex)).rejects.toMatchObject({ status: 409, code: 'episode_expired' });
    const s = await status(t);
    expect(s.counters).toMatchObject({ claimed: 3, ended: 1, aborted: 1, expired: 1 });
    expect(s.pool.episodes).toBe(1);
    // Expired and aborted timelines stay inspectable; they are never pooled.
    const list = await http<{ episodes: { status: string; calls: number }[] }>(
      t.worker.url,
      'GET',
      '/swarm/v1/episodes?status=aborted',
      { token: admin },
    );
    expect(list.body.episodes).toEqual([expect.objectContaining({ status: 'aborted', calls: 1 })]);
  });

  it('tracks clients: joins, counters, heartbeat, leave aborts open episodes, timeout marks them gone', async () => {
    const t = await start({ clientTimeoutS: 0.3 });
    const reg = await http<{ clientId: string }>(t.worker.url, 'POST', '/swarm/v1/clients', {
      token: join,
      body: { name: 'runner-1' },
    });
    expect(reg.body.clientId).toMatch(/^cl_/);
    const c = await claim(t, { clientId: reg.body.clientId });
    await chat(c);
    const s1 = await status(t);
    expect(s1.clients.find((x) => x.clientId === reg.body.clientId)).toMatchObject({
      active: true,
      name: 'runner-1',
      openEpisodes: 1,
      counters: { claimed: 1, calls: 1 },
    });
    await http(t.worker.url, 'POST', `/swarm/v1/clients/${reg.body.clientId}/leave`, { token: join });
    await expect(chat(c)).rejects.toMatchObject({ status: 409, code: 'episode_aborted' });
    await claim(t, { clientId: 'sleepy' });
    const s2 = await until(
      () => status(t),
      (s) => s.clients.find((x) => x.clientId === 'sleepy')?.active === false,
    );
    expect(s2.counters.aborted).toBe(2);
  });

  it('needs the right token for each endpoint', async () => {
    const t = await start();
    expect((await http(t.worker.url, 'POST', '/swarm/v1/episodes', { body: { clientId: 'x' } })).status).toBe(401);
    expect(
      (await http(t.worker.url, 'POST', '/swarm/v1/episodes', { token: 'nope', body: { clientId: 'x' } })).status,
    ).toBe(401);
    expect((await http(t.worker.url, 'GET', '/swarm/v1/config', { token: join })).status).toBe(403);
    expect((await http(t.worker.url, 'GET', '/swarm/v1/config', { token: admin })).status).toBe(200);
    expect((await http(t.worker.url, 'GET', '/health')).body).toMatchObject({
      ok: true,
      state: 'running',
      step: 0,
      model: 'fake-model',
    });
    expect(t.logs.join('\n')).not.toContain(admin);
    expect(t.logs.join('\n')).not.toContain(join);
  });
});

describe('training', () => {
  it('C2 trains a complete group with GRPO, bumps the weight version, never trains eval episodes', async () => {
    // linear merging: one sample per episode, each with its episode's advantage
    const t = await start({ training: { strategy: 'C2', batch: 1, groupSize: 2, merge: 'linear' } });
    const ev = await playAndEnd(t, 'held-out', 1, 'eval');
    await playAndEnd(t, 'a', 1);
    expect((await status(t)).progress).toMatchObject({ ready: false, current: 0, target: 1, unit: 'tasks' });
    await playAndEnd(t, 'a', 0);
    const s = await until(
      () => status(t),
      (x) => x.step === 1,
    );
    expect(s.weightVersion).toBe(1);
    expect(s.pool.episodes).toBe(0);
    expect(s.counters.trainedEpisodes).toBe(2);
    expect(s.lastStep).toMatchObject({
      step: 1,
      episodes: 2,
      tasks: 1,
      rewardMean: 0.5,
      rewardMin: 0,
      rewardMax: 1,
      samples: 2,
      successRate: 0.5,
    });
    const trained = t.engines[0]!.calls.filter((c) => c.method === 'train_step');
    expect(trained).toHaveLength(1);
    const samples = (trained[0]!.params as { samples: { advantages: number }[] }).samples;
    expect(samples.map((x) => Math.sign(x.advantages)).sort()).toEqual([-1, 1]);
    expect(s.eval).toEqual([{ weightVersion: 0, episodes: 1, rewardMean: 1, successRate: 1 }]);
    expect(ev.kind).toBe('eval');
    // A call after the update is sampled by the new weights.
    const c = await claim(t);
    expect(c.weightVersion).toBe(1);
    expect((await chat(c)).system_fingerprint).toBe('wv1');
  });

  it('trains with tree merging, the default', async () => {
    const t = await start({ training: { strategy: 'C2', batch: 1, groupSize: 2 } });
    await playAndEnd(t, 'a', 1);
    await playAndEnd(t, 'a', 0);
    const s = await until(
      () => status(t),
      (x) => x.step === 1,
    );
    expect(s.config.merge).toBe('tree');
    expect(s.lastStep?.samples).toBeGreaterThan(0);
  });

  it('C3 drops zero-variance groups; C1 counts episodes', async () => {
    const t = await start({ training: { strategy: 'C3', batch: 1, groupSize: 2 } });
    await playAndEnd(t, 'flat', 1);
    await playAndEnd(t, 'flat', 1);
    await until(
      () => status(t),
      (s) => s.pool.episodes === 0 && s.counters.droppedEpisodes === 2,
    );
    expect((await status(t)).step).toBe(0);
    await http(t.worker.url, 'PATCH', '/swarm/v1/config', { token: admin, body: { strategy: 'C1', batch: 2 } });
    await playAndEnd(t, 'x', 1);
    await playAndEnd(t, 'y', 0);
    await until(
      () => status(t),
      (s) => s.pool.episodes === 0,
    );
    // REINFORCE-free GRPO groups of one have zero advantage: no gradient, no step.
    expect((await status(t)).step).toBe(0);
    await http(t.worker.url, 'PATCH', '/swarm/v1/config', { token: admin, body: { algo: 'reinforce' } });
    await playAndEnd(t, 'x', 1);
    await playAndEnd(t, 'y', 0);
    await until(
      () => status(t),
      (s) => s.step === 1,
    );
  });

  it('C4 updates when one client agrees to sync, C5 when all active clients do', async () => {
    const t = await start({ training: { strategy: 'C5', batch: 1, groupSize: 1, algo: 'reinforce' } });
    await playAndEnd(t, 'a', 1, 'train', 'p');
    await playAndEnd(t, 'b', 0, 'train', 'q');
    await http(t.worker.url, 'POST', '/swarm/v1/clients/p/agree-sync', { token: join });
    expect((await status(t)).progress).toMatchObject({ ready: false, current: 1, target: 2, unit: 'clients' });
    await http(t.worker.url, 'POST', '/swarm/v1/clients/q/agree-sync', { token: join });
    await until(
      () => status(t),
      (s) => s.step === 1,
    );
    await http(t.worker.url, 'PATCH', '/swarm/v1/config', { token: admin, body: { strategy: 'C4' } });
    await playAndEnd(t, 'a', 1, 'train', 'p');
    await playAndEnd(t, 'b', 0, 'train', 'q');
    await http(t.worker.url, 'POST', '/swarm/v1/clients/q/agree-sync', { token: join });
    await until(
      () => status(t),
      (s) => s.step === 2,
    );
  });

  it('during an update: running generations finish on the old weights, claims wait for the new ones, stale episodes are dropped', async () => {
    const t = await start(
      { training: { strategy: 'C1', batch: 1, algo: 'reinforce', maxStaleness: 0 } },
      { engine: { reply: scriptedReply, stepMs: 5 } },
    );
    // An episode whose first call was sampled before the update …
    const slow = await claim(t, { taskId: 's' });
    await chat(slow);
    await http(t.worker.url, 'PATCH', '/swarm/v1/config', { token: admin, body: { batch: 2 } });
    const e1 = await claim(t, { taskId: 'u1' });
    const e2 = await claim(t, { taskId: 'u2' });
    await Promise.all([chat(e1), chat(e2)]);
    // … a long generation in flight when two episodes end and trigger the update …
    const inflight = chat(await claim(t, { taskId: 'inflight' }), 'long');
    await new Promise((r) => setTimeout(r, 30));
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${e1.episodeId}/end`, {
      token: join,
      body: { taskId: 'u1', reward: 1 },
    });
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${e2.episodeId}/end`, {
      token: join,
      body: { taskId: 'u2', reward: 0 },
    });
    // … a claim made while the update waits for the generation to finish is held, and answered on the new weights.
    await until(
      () => status(t),
      (s) => s.state === 'updating',
    );
    const during = http<{ weightVersion: number }>(t.worker.url, 'POST', '/swarm/v1/episodes', {
      token: join,
      body: { clientId: 'late' },
    });
    expect((await inflight).system_fingerprint).toBe('wv0');
    const late = await during;
    expect(late.status).toBe(201);
    expect(late.body.weightVersion).toBe(1);
    const afterFirst = await until(
      () => status(t),
      (s) => s.step === 1 && s.state === 'running',
    );
    // The slow episode now spans versions 0 and 1: with maxStaleness 0 its old call makes it stale.
    await chat(slow);
    const other = await claim(t, { taskId: 'o' });
    await chat(other);
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${slow.episodeId}/end`, {
      token: join,
      body: { taskId: 's', reward: 1 },
    });
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${other.episodeId}/end`, {
      token: join,
      body: { taskId: 'o', reward: 0 },
    });
    // The pool empties when the update takes the batch, before its step metrics are reported: wait for the new step's.
    const firstStep = JSON.stringify(afterFirst.lastStep);
    const s = await until(
      () => status(t),
      (x) => x.pool.episodes === 0 && x.state === 'running' && JSON.stringify(x.lastStep) !== firstStep,
    );
    expect(s.lastStep?.droppedStale).toBe(1);
    const ep = await http<{ episode: { weightVersions: number[] } }>(
      t.worker.url,
      'GET',
      `/swarm/v1/episodes/${slow.episodeId}`,
      { token: admin },
    );
    expect(ep.body.episode.weightVersions).toEqual([0, 1]);
  });

  it("pauses and starts on the admin's request", async () => {
    const t = await start();
    await http(t.worker.url, 'POST', '/swarm/v1/control/pause', { token: admin });
    const r = await http(t.worker.url, 'POST', '/swarm/v1/episodes', { token: join, body: { clientId: 'x' } });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ error: { code: 'paused' } });
    await http(t.worker.url, 'POST', '/swarm/v1/control/start', { token: admin });
    await claim(t);
  });
});

describe('vocabulary', () => {
  it('lists every token id decoded alone, in chunks, once; admin only', async () => {
    const t = await start();
    const engine = t.engines[0]!;
    const decodes = (): number => engine.calls.filter((c) => c.method === 'decode').length;
    const before = decodes();
    const res = await http<{ pieces: string[] }>(t.worker.url, 'GET', '/swarm/v1/vocab', { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.pieces).toHaveLength(70_000);
    expect(res.body.pieces[75]).toBe('A');
    expect(res.body.pieces).toContain('<|im_start|>'); // special tokens are kept
    expect(decodes() - before).toBe(Math.ceil(70_000 / 4096));
    const again = await http<{ pieces: string[] }>(t.worker.url, 'GET', '/swarm/v1/vocab', { token: admin });
    expect(again.body.pieces).toEqual(res.body.pieces);
    expect(decodes() - before).toBe(Math.ceil(70_000 / 4096));
    expect((await http(t.worker.url, 'GET', '/swarm/v1/vocab', { token: join })).status).toBe(403);
  });
});

describe('events', () => {
  function connect(
    url: string,
    query = '',
    token = admin,
  ): Promise<{ ws: WebSocket; messages: Record<string, unknown>[] }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${url.replace('http', 'ws')}/swarm/v1/events${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const messages: Record<string, unknown>[] = [];
      ws.on('message', (d) => messages.push(JSON.parse(String(d)) as Record<string, unknown>));
      ws.on('open', () => resolve({ ws, messages }));
      ws.on('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)));
      ws.on('error', reject);
    });
  }

  it('streams typed, numbered events and resumes from a sequence number', async () => {
    const t = await start({ training: { strategy: 'C1', batch: 2, algo: 'reinforce' } });
    const a = await connect(t.worker.url);
    await playAndEnd(t, 'a', 1);
    await playAndEnd(t, 'b', 0);
    await until(
      () => a.messages,
      (m) => m.some((e) => e['type'] === 'step'),
    );
    const hello = a.messages[0]!;
    expect(hello).toMatchObject({ type: 'hello', gap: false });
    const events = a.messages.slice(1) as unknown as SwarmEvent[];
    const types = new Set(events.map((e) => e.type));
    for (const ty of ['client_joined', 'episode_started', 'episode_ended', 'batch_progress', 'state', 'step'])
      expect(types).toContain(ty);
    // A step is one event carrying its merge statistics.
    const step = events.find((e) => e.type === 'step');
    expect(step?.type === 'step' && step.merge).toMatchObject({ episodes: 2, callsIn: 2 });
    events.forEach((e, i) => i > 0 && expect(e.seq).toBe(events[i - 1]!.seq + 1));
    const cut = events[3]!.seq;
    a.ws.close();
    const b = await connect(t.worker.url, `?since=${cut}&boot=${String(hello['bootId'])}`);
    await until(
      () => b.messages,
      (m) => m.length > 1,
    );
    expect((b.messages[1] as unknown as SwarmEvent).seq).toBe(cut + 1);
    const otherBoot = await connect(t.worker.url, '?since=5&boot=old');
    expect(otherBoot.messages[0]).toMatchObject({ type: 'hello', gap: true });
    b.ws.close();
    otherBoot.ws.close();
    await expect(connect(t.worker.url, '', join)).rejects.toThrow(/403/);
    await expect(connect(t.worker.url, '', 'wrong')).rejects.toThrow(/401/);
  });
});

describe('durability and faults (fake engine)', () => {
  it('resumes a run with its pool, step, tokens and secret after a crash without shutdown', async () => {
    const dir = runDir('aj-resume-');
    const t = await start({ training: { strategy: 'C1', batch: 2, algo: 'reinforce', checkpointEvery: 1 } }, { dir });
    await playAndEnd(t, 'a', 1);
    await playAndEnd(t, 'b', 0);
    await until(
      () => status(t),
      (s) => s.step === 1 && s.lastCheckpoint?.step === 1,
    );
    const pending = await playAndEnd(t, 'c', 1);
    const open = await claim(t);
    await t.worker.dispose(); // as after kill -9: no shutdown checkpoint
    running.splice(running.indexOf(t), 1);
    const r = await startFakeWorker({}, { engine: { reply: scriptedReply }, dir, start: { resume: true } });
    running.push(r);
    const s = await status(r);
    expect(s).toMatchObject({ step: 1, weightVersion: 1, pool: { episodes: 1 } });
    expect(s.config.strategy).toBe('C1');
    const list = await http<{ episodes: unknown[] }>(r.worker.url, 'GET', '/swarm/v1/episodes', { token: admin });
    expect(list.status).toBe(200);
    // The open episode's key is still validly signed, but the episode is gone with the old process.
    await expect(chat({ ...open, baseUrl: `${r.worker.url}/v1` })).rejects.toMatchObject({
      status: 404,
      code: 'episode_not_found',
    });
    expect(pending.episodeId).toMatch(/^ep_/);
    // Without --resume the run dir is refused.
    await expect(startFakeWorker({}, { dir })).rejects.toThrow(/--resume/);
  });

  it('redoes steps after the last checkpoint on resume, so no accepted episode is lost', async () => {
    const dir = runDir('aj-redo-');
    const t = await start({ training: { strategy: 'C1', batch: 2, algo: 'reinforce', checkpointEvery: 0 } }, { dir });
    await playAndEnd(t, 'a', 1);
    await playAndEnd(t, 'b', 0);
    await until(
      () => status(t),
      (s) => s.step === 1 && s.pool.episodes === 0,
    );
    await t.worker.dispose();
    running.splice(running.indexOf(t), 1);
    const r = await startFakeWorker({}, { engine: { reply: scriptedReply }, dir, start: { resume: true } });
    running.push(r);
    // No checkpoint was written: the step is redone from the pool. Counters never go backwards,
    // so the redone training counts again (2 before the crash, 2 more after).
    const s = await until(
      () => status(r),
      (x) => x.step === 1 && x.pool.episodes === 0,
    );
    expect(s.counters.trainedEpisodes).toBe(4);
  });

  it('answers 503 for calls in flight when the engine dies, restarts it from the last checkpoint, keeps health and status answering', async () => {
    const t = await start(
      { training: { strategy: 'C1', batch: 2, algo: 'reinforce' } },
      { engine: { reply: scriptedReply, stepMs: 20 } },
    );
    await playAndEnd(t, 'a', 1);
    await playAndEnd(t, 'b', 0);
    await until(
      () => status(t),
      (s) => s.step === 1,
    );
    await http(t.worker.url, 'POST', '/swarm/v1/control/checkpoint', { token: admin });
    await playAndEnd(t, 'c', 1);
    await playAndEnd(t, 'd', 0);
    await until(
      () => status(t),
      (s) => s.step === 2,
    );
    const c = await claim(t);
    const inflight = chat(c, 'long').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    t.engines.at(-1)!.kill();
    const err = (await inflight) as { status: number; code: string; message: string };
    expect(err.status).toBe(503);
    expect(err.code).toBe('engine_unavailable');
    expect(err.message).toMatch(/restarted from the last checkpoint/);
    expect((await http(t.worker.url, 'GET', '/health')).status).toBe(200);
    const s = await until(
      () => status(t),
      (x) => x.state === 'running' && x.engine.restarts === 1,
    );
    // Back at the checkpoint: step 1, and the episodes of step 2 are back in the pool to be redone.
    expect(s.weightVersion).toBeLessThanOrEqual(2);
    await until(
      () => status(t),
      (x) => x.step === 2,
    );
    expect(t.engines).toHaveLength(2);
    await chat(c);
  });
});

describe('lifecycle', () => {
  it('leaves no timers, sockets or file handles behind after dispose', async () => {
    const count = (): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
      return out;
    };
    await new Promise((r) => setTimeout(r, 20));
    const before = count();
    const t = await startFakeWorker({}, { engine: { reply: scriptedReply } });
    const c = await claim(t);
    await chat(c);
    const ws = new WebSocket(`${t.worker.url.replace('http', 'ws')}/swarm/v1/events`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    await new Promise((r) => ws.on('open', r));
    expect(count()['TCPServerWrap'] ?? 0).toBeGreaterThan(before['TCPServerWrap'] ?? 0);
    const closed = new Promise((r) => ws.on('close', r));
    await t.stop();
    await closed;
    await new Promise((r) => setTimeout(r, 50));
    const after = count();
    for (const kind of ['TCPServerWrap', 'TCPSocketWrap', 'Timeout', 'FileHandle'])
      expect(after[kind] ?? 0, kind).toBeLessThanOrEqual(before[kind] ?? 0);
  });
});
