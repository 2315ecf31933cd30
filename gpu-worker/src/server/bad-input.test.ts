// Bad input against a worker with the fake engine: every malformed request gets a 4xx with a
// clear JSON error, random requests never get a 5xx, and afterwards the server still serves
// and its pool is intact. (The same battery runs against the real engine in worker.test.ts.)
// The hardening battery (issue #16) runs against a worker that trains on every episode, with a
// fake file system under its journal: after each case it is healthy and a normal episode trains.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineParams } from '../../../src/shared/engine-protocol';
import type { ClaimResponse, Health, Status } from '../../../src/shared/swarm-protocol';
import {
  badInputCases,
  expectBadInputRefused,
  expectRefusedAndStillTraining,
  expectNormalEpisodeTrains,
  fuzzRandomRequests,
  hardeningCases,
  limitCases,
  type BadInputTarget,
} from '../testing/bad-input';
import { FakeFaultyFs } from '../testing/fake-faulty-fs';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../testing/workers';

describe('bad input (fake engine)', () => {
  let t: TestWorker;
  let target: BadInputTarget;
  const status = async (): Promise<Status> =>
    (await http<Status>(t.worker.url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body;

  beforeAll(async () => {
    t = await startFakeWorker(
      { bodyLimitBytes: 64 * 1024, training: { strategy: 'C1', batch: 1000 } },
      { engine: { reply: scriptedReply } },
    );
    target = {
      url: t.worker.url,
      tokens: TEST_TOKENS,
      bodyLimit: 64 * 1024,
      waitForExpiry: async () => {
        const before = (await status()).counters.expired;
        while ((await status()).counters.expired === before) await new Promise((r) => setTimeout(r, 20));
      },
    };
    // Something in the pool to keep intact.
    const c = (
      await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'good', taskId: 'a' },
      })
    ).body;
    await new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: TEST_TOKENS.join,
      body: { taskId: 'a', reward: 1 },
    });
  });
  afterAll(async () => t.stop());

  it('refuses each malformed request with a 4xx and a clear JSON error', async () => {
    await expectBadInputRefused(await badInputCases(target));
  });

  it('never answers random requests with a 5xx', async () => {
    await fuzzRandomRequests(target, 300);
  });

  it('still serves afterwards, with the pool intact', async () => {
    const s = await status();
    expect(s.pool.episodes).toBe(1);
    expect(s.state).toBe('running');
    const c = (
      await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'good' },
      })
    ).body;
    const out = await new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(out.choices[0]!.message.content).toBe('Hello from the fake engine.');
  });
});

describe('hardening battery (fake engine, fake journal file system)', () => {
  let t: TestWorker;
  const fs = new FakeFaultyFs();
  const limits = { maxConnectionsPerAddress: 16, headersTimeoutS: 0.5, requestTimeoutS: 2 };

  beforeAll(async () => {
    t = await startFakeWorker(
      { ...limits, training: { strategy: 'C2', batch: 1, groupSize: 2, checkpointEvery: 0 } },
      { engine: { reply: scriptedReply }, start: { journalFs: fs } },
    );
  });
  afterAll(async () => t.stop());

  it('refuses each hostile request in the error shape, stays healthy, and trains a normal task group after each', async () => {
    const cases = [
      ...hardeningCases({ url: t.worker.url, tokens: TEST_TOKENS, ...limits, journalFs: fs }),
      ...limitCases({ url: t.worker.url, tokens: TEST_TOKENS }),
    ];
    expect(cases.length).toBeGreaterThanOrEqual(22);
    await expectRefusedAndStillTraining(cases, { url: t.worker.url, tokens: TEST_TOKENS });
  });

  it('serves every id it registers on the client routes, decoded once', async () => {
    // 200 characters (the most IdSchema allows) of a 3-byte UTF-8 letter: 1,800 characters encoded.
    for (const id of ['100%', 'a%41', 'ü'.repeat(200), '\u20ac'.repeat(200), 'sp ace/slash?']) {
      expect(
        (await http(t.worker.url, 'POST', '/swarm/v1/clients', { token: TEST_TOKENS.join, body: { clientId: id } }))
          .status,
      ).toBe(200);
      const hb = await http<{ clientId: string }>(
        t.worker.url,
        'POST',
        `/swarm/v1/clients/${encodeURIComponent(id)}/heartbeat`,
        { token: TEST_TOKENS.join },
      );
      expect(hb.status, `${id.slice(0, 20)}: ${JSON.stringify(hb.body).slice(0, 200)}`).toBe(200);
      expect(hb.body.clientId).toBe(id);
    }
    const listed = await http<{ clients: { clientId: string }[] }>(t.worker.url, 'GET', '/swarm/v1/clients', {
      token: TEST_TOKENS.join,
    });
    // Heartbeats of unknown ids (the battery's) registered nobody.
    expect(listed.body.clients.map((c) => c.clientId)).not.toContain('never-registered');
    expect(listed.body.clients.map((c) => c.clientId)).toContain('100%');
  });
});

describe('engine call deadlines (a fake engine that never answers one generation)', () => {
  let t: TestWorker;
  const LOST = 77; // the max_tokens of the generation the fake engine never answers

  beforeAll(async () => {
    // Deadlines at 1% of their defaults: a generation of 77 tokens gets 1.39 s, a render 0.6 s.
    t = await startFakeWorker(
      { engineTimeoutScale: 0.01, training: { strategy: 'C2', batch: 1, groupSize: 2, checkpointEvery: 0 } },
      {
        engine: {
          reply: scriptedReply,
          hangIf: (method, params) =>
            method === 'generate' && (params as EngineParams['generate']).requests.some((r) => r.maxTokens === LOST),
        },
      },
    );
  });
  afterAll(async () => t.stop());

  it('fails the call at its deadline with a 504, the episode still ends, and the worker trains on', async () => {
    const c = (
      await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'deadline', taskId: 'lost' },
      })
    ).body;
    const lost = await http<{ error: { code: string; message: string } }>(
      t.worker.url,
      'POST',
      '/v1/chat/completions',
      {
        token: c.apiKey,
        body: { messages: [{ role: 'user', content: 'hi' }], max_tokens: LOST },
      },
    );
    expect(lost.status).toBe(504);
    expect(lost.body.error.code).toBe('engine_timeout');
    expect(lost.body.error.message).toMatch(/the engine did not answer generate within 1\.39 s/);
    // The episode did not stick in `ending`: its end answers, and a second end is the usual 409.
    const end = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: TEST_TOKENS.join,
      body: { taskId: 'lost', reward: 1 },
    });
    expect(end.status, JSON.stringify(end.body)).toBe(200);
    expect(t.worker.swarm.findEpisode(c.episodeId)?.status).toBe('ended');
    await expectNormalEpisodeTrains({ url: t.worker.url, tokens: TEST_TOKENS }, 'after-deadline');
    expect((await http<Health>(t.worker.url, 'GET', '/health')).body).toMatchObject({ ok: true, state: 'running' });
  });
});
