// Slow and hostile connections against a worker (fake engine) over real TCP sockets: bodies
// trickled with a wrong token are refused before they are read, slow headers and slow bodies
// run into their timeouts, idle keep-alive connections are closed, one address cannot hold more
// than its share of connections, and router-level refusals use the documented error shape.
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorBodySchema, type ClaimResponse } from '../../../src/shared/swarm-protocol';
import { scriptedReply } from '../testing/scripted-replies';
import { openIdle, rawExchange, requestHead } from '../testing/sockets';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../testing/workers';

const running: TestWorker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

async function start(config: Parameters<typeof startFakeWorker>[0] = {}): Promise<TestWorker> {
  const t = await startFakeWorker(config, { engine: { reply: scriptedReply } });
  running.push(t);
  return t;
}

const connections = (t: TestWorker): Promise<number> =>
  new Promise((resolve, reject) => t.worker.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

async function until(ok: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function expectErrorShape(body: unknown, code: string): void {
  const parsed = ErrorBodySchema.safeParse(body);
  expect(parsed.success, JSON.stringify(body).slice(0, 300)).toBe(true);
  expect(parsed.data?.error.code).toBe(code);
  expect(parsed.data?.error.message.length).toBeGreaterThan(5);
}

/** A normal client: claim and one chat call, timed. */
async function normalCall(t: TestWorker): Promise<number> {
  const t0 = Date.now();
  const c = await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
    token: TEST_TOKENS.join,
    body: { clientId: 'normal' },
  });
  expect(c.status).toBe(201);
  const r = await http(t.worker.url, 'POST', '/v1/chat/completions', {
    token: c.body.apiKey,
    body: { messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(r.status).toBe(200);
  return Date.now() - t0;
}

describe('slow and hostile connections', () => {
  it('closes 50 sockets trickling a body with a wrong token at once, before reading it, while serving others', async () => {
    const t = await start({ maxConnectionsPerAddress: 100, requestTimeoutS: 60 });
    const baseline = await connections(t);
    const trickle = Array.from({ length: 50 }, (_, i) =>
      rawExchange(t.worker.url, {
        head:
          requestHead('POST', i % 2 === 0 ? '/v1/chat/completions' : '/swarm/v1/episodes', {
            token: `wrong-token-${i}`,
            contentLength: 4 * 1024 * 1024,
          }) + '{"messages":[',
        trickle: { chunk: 'x'.repeat(64), everyMs: 20 },
        timeoutMs: 20_000,
      }),
    );
    // Others are served meanwhile.
    for (let i = 0; i < 3; i++) await normalCall(t);
    const answers = await Promise.all(trickle);
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.headers['connection']).toBe('close');
      expectErrorShape(a.body, 'invalid_api_key');
      // Refused on the headers: well before a request timeout, and before the 4 MiB body.
      expect(a.closedAfterMs).toBeLessThan(10_000);
      expect(a.bytesSent).toBeLessThan(1024 * 1024);
    }
    // Only the normal client's keep-alive connection may remain.
    await until(async () => (await connections(t)) <= baseline + 3, 5000, 'the refused connections to be gone');
  });

  it('cuts off slow headers and slow bodies with a 408 in the error shape', async () => {
    const t = await start({ headersTimeoutS: 0.4, requestTimeoutS: 1 });
    const slowHeaders = rawExchange(t.worker.url, {
      head: 'POST /swarm/v1/episodes HTTP/1.1\r\nHost: x\r\n',
      trickle: { chunk: 'X-Slow: 1\r\n', everyMs: 100 },
      timeoutMs: 10_000,
    });
    const c = (
      await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'slow' },
      })
    ).body;
    const slowBody = rawExchange(t.worker.url, {
      head:
        requestHead('POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
          token: TEST_TOKENS.join,
          contentLength: 10_000,
        }) + '{"taskId":"t",',
      trickle: { chunk: ' ', everyMs: 50 },
      timeoutMs: 10_000,
    });
    for (const a of await Promise.all([slowHeaders, slowBody])) {
      expect(a.status).toBe(408);
      expectErrorShape(a.body, 'request_timeout');
      expect(a.closedAfterMs).toBeLessThan(5000);
    }
    // The episode is still open and ends normally.
    const end = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: TEST_TOKENS.join,
      body: { taskId: 't', reward: 1 },
    });
    expect(end.status).toBe(200);
  });

  it('closes idle keep-alive connections', async () => {
    const t = await start({ keepAliveTimeoutS: 0.3, headersTimeoutS: 0.5 });
    const answer = rawExchange(t.worker.url, { head: requestHead('GET', '/health'), timeoutMs: 10_000 });
    const a = await answer;
    expect(a.status).toBe(200);
    expect(a.closedAfterMs).toBeLessThan(4000);
    const idle = await openIdle(t.worker.url);
    const received = await idle.closed; // a connection that never sends a request: the headers timeout
    expect(received === '' || received.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('bounds the connections of one address with a clear 503, and accepts again once some close', async () => {
    const t = await start({ maxConnectionsPerAddress: 5 });
    const held = await Promise.all(Array.from({ length: 5 }, () => openIdle(t.worker.url)));
    const refused = await rawExchange(t.worker.url, { head: requestHead('GET', '/health'), timeoutMs: 5000 });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expectErrorShape(refused.body, 'too_many_connections');
    for (const h of held) h.socket.destroy();
    await until(async () => (await connections(t)) === 0, 5000, 'the held connections to close');
    expect((await http(t.worker.url, 'GET', '/health')).status).toBe(200);
  });

  it('answers router-level refusals (bad URL, 414, 431) in the documented shape', async () => {
    const t = await start();
    const badUrl = await http(t.worker.url, 'POST', '/swarm/v1/clients/%E0%A4%A/heartbeat', {
      token: TEST_TOKENS.join,
    });
    expect(badUrl.status).toBe(400);
    expectErrorShape(badUrl.body, 'bad_url');
    const long = await http(t.worker.url, 'POST', `/swarm/v1/clients/${'a'.repeat(3000)}/heartbeat`, {
      token: TEST_TOKENS.join,
    });
    expect(long.status).toBe(414);
    expectErrorShape(long.body, 'uri_too_long');
    const bigHeaders = await rawExchange(t.worker.url, {
      head: requestHead('GET', '/health', { extra: `X-Big: ${'b'.repeat(20_000)}` }),
      timeoutMs: 5000,
    });
    expect(bigHeaders.status).toBe(431);
    expectErrorShape(bigHeaders.body, 'headers_too_large');
    const garbage = await rawExchange(t.worker.url, { head: 'NOT HTTP AT ALL\r\n\r\n', timeoutMs: 5000 });
    expect(garbage.status).toBe(400);
    expectErrorShape(garbage.body, 'bad_request');
    expect((await http(t.worker.url, 'GET', '/health')).body).toMatchObject({ ok: true });
  });
});
