// The WorkerClient against a real worker (scripted engine): calls through the route table with their
// answers parsed, the worker's own error codes on refusals; and the worker URL checks (the attach errors
// are tested with real servers in remote.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedReply } from '../../gpu-worker/src/testing/scripted-replies';
import { startFakeWorker, TEST_TOKENS, type TestWorker } from '../../gpu-worker/src/testing/workers';
import { normalizeWorkerUrl, WorkerCallError, WorkerClient } from './worker-client';

describe('normalizeWorkerUrl', () => {
  it('accepts host:port and URLs, trims a trailing slash, refuses what is not an http URL', () => {
    expect(normalizeWorkerUrl('http://127.0.0.1:8321/')).toBe('http://127.0.0.1:8321');
    expect(normalizeWorkerUrl(' gpu-box:8321 ')).toBe('http://gpu-box:8321');
    expect(normalizeWorkerUrl('https://example.com/agentjet/')).toBe('https://example.com/agentjet');
    for (const bad of ['ftp://x', 'http://', 'http://h:99999', 'http://h:1/?q=1'])
      expect(() => normalizeWorkerUrl(bad), bad).toThrow(expect.objectContaining({ code: 'malformed_url' }));
  });
});

describe('WorkerClient', () => {
  let t: TestWorker;
  let client: WorkerClient;
  beforeAll(async () => {
    t = await startFakeWorker({ training: { strategy: 'C1', batch: 2 } }, { engine: { reply: scriptedReply } });
    client = new WorkerClient(t.worker.url, TEST_TOKENS.admin);
  });
  afterAll(async () => {
    await t.stop();
  });

  const refusal = (p: Promise<unknown>): Promise<WorkerCallError> =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (err: unknown) => {
        if (!(err instanceof WorkerCallError)) throw err;
        return err;
      },
    );

  it('calls routes by name: params, query and body filled in, answers parsed', async () => {
    expect((await client.health()).model).toBe(t.worker.swarm.modelName);
    expect((await client.call('updateConfig', { body: { batch: 3 } })).batch).toBe(3);
    expect((await client.call('config', {})).batch).toBe(3);
    expect((await client.call('pause', {})).state).toBe('paused');
    expect((await client.call('start', {})).state).not.toBe('paused');
    const listed = await client.call('episodes', { query: { clientId: 'nobody', limit: 5 } });
    expect(listed.episodes).toEqual([]);
    expect((await client.status()).config.batch).toBe(3);
  });

  it("refuses with the worker's code: a bad body, an unknown episode, a join token where admin is needed", async () => {
    const bad = await refusal(client.call('updateConfig', { body: { lr: -1 } }));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/^PATCH http:\/\/127\.0\.0\.1:\d+\/swarm\/v1\/config: HTTP 400 /);
    const missing = await refusal(client.call('episode', { params: { id: 'ep/none?' } }));
    expect([missing.status, missing.code]).toEqual([404, 'not_found']);
    expect(missing.message).toContain('/swarm/v1/episodes/ep%2Fnone%3F');
    const joinOnly = new WorkerClient(t.worker.url, TEST_TOKENS.join);
    expect((await refusal(joinOnly.call('config', {}))).code).toBe('token_rejected');
  });
});
