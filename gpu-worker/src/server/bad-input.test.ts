// Bad input against a worker with the fake engine: every malformed request gets a 4xx with a
// clear JSON error, random requests never get a 5xx, and afterwards the server still serves
// and its pool is intact. (The same battery runs against the real engine in worker.test.ts.)
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse, Status } from '../../../src/shared/swarm-protocol';
import { badInputCases, expectBadInputRefused, fuzzRandomRequests, type BadInputTarget } from '../testing/bad-input';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../testing/workers';

describe('bad input (fake engine)', () => {
  let t: TestWorker;
  let target: BadInputTarget;
  const status = async (): Promise<Status> => (await http<Status>(t.worker.url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body;

  beforeAll(async () => {
    t = await startFakeWorker({ bodyLimitBytes: 64 * 1024, training: { strategy: 'C1', batch: 1000 } }, { engine: { reply: scriptedReply } });
    target = {
      url: t.worker.url, tokens: TEST_TOKENS, bodyLimit: 64 * 1024,
      waitForExpiry: async () => {
        const before = (await status()).counters.expired;
        while ((await status()).counters.expired === before) await new Promise((r) => setTimeout(r, 20));
      },
    };
    // Something in the pool to keep intact.
    const c = (await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', { token: TEST_TOKENS.join, body: { clientId: 'good', taskId: 'a' } })).body;
    await new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, { token: TEST_TOKENS.join, body: { taskId: 'a', reward: 1 } });
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
    const c = (await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', { token: TEST_TOKENS.join, body: { clientId: 'good' } })).body;
    const out = await new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(out.choices[0]!.message.content).toBe('Hello from the fake engine.');
  });
});
