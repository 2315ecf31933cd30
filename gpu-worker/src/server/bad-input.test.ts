// Bad input against a worker with the fake engine: every malformed request gets a 4xx with a
// clear JSON error, random requests never get a 5xx, and afterwards the server still serves
// and its pool is intact. (The same battery runs against the real engine in worker.test.ts.)
// The hardening battery (issue #16) runs against a worker that trains on every episode, with a
// fake file system under its journal: after each case it is healthy and a normal episode trains.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse, Status } from '../../../src/shared/swarm-protocol';
import {
  badInputCases,
  expectBadInputRefused,
  expectRefusedAndStillTraining,
  fuzzRandomRequests,
  hardeningCases,
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
    const cases = hardeningCases({ url: t.worker.url, tokens: TEST_TOKENS, ...limits, journalFs: fs });
    expect(cases.length).toBeGreaterThanOrEqual(14);
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
