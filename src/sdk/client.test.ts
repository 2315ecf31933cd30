// SwarmClient against a tiny scripted HTTP server: retries on 503 honouring Retry-After, waits out a
// refused connection, gives up at its deadline, and turns error bodies into SwarmErrors.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { backoffMs, RETRY_DEFAULTS, SwarmClient, SwarmError } from './index';

const CLAIM = {
  episodeId: 'ep_1',
  baseUrl: 'http://x/v1',
  apiKey: 'k',
  model: 'm',
  weightVersion: 0,
  kind: 'train',
  timeoutS: 300,
};
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(
  handler: Handler,
  port = 0,
): Promise<{ url: string; requests: { url: string; body: string; auth: string }[] }> {
  const requests: { url: string; body: string; auth: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', body, auth: req.headers.authorization ?? '' });
      handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const unavailable = (res: ServerResponse, retryAfter: string): void =>
  json(
    res,
    503,
    { error: { type: 'service_unavailable', code: 'updating', message: 'the policy is being updated' } },
    { 'retry-after': retryAfter },
  );

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('SwarmClient retries', () => {
  it('retries 503 twice, honouring Retry-After, then returns the parsed claim', async () => {
    let n = 0;
    const srv = await serve((_req, res) => (++n <= 2 ? unavailable(res, '0.2') : json(res, 201, CLAIM)));
    const retries: number[] = [];
    const client = new SwarmClient({
      url: srv.url,
      joinToken: 'tok',
      clientId: 'c1',
      retry: { initialDelayMs: 1 },
      onRetry: (i) => retries.push(i.delayMs),
    });
    const t0 = Date.now();
    const claim = await client.claim({ taskId: 't1', kind: 'eval', role: 'solver' });
    expect(claim).toEqual(CLAIM);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    expect(retries).toEqual([200, 200]);
    expect(srv.requests).toHaveLength(3);
    expect(srv.requests[0]!).toMatchObject({ url: '/swarm/v1/episodes', auth: 'Bearer tok' });
    expect(JSON.parse(srv.requests[0]!.body)).toEqual({ clientId: 'c1', kind: 'eval', taskId: 't1', role: 'solver' });
  });

  it('waits out a refused connection until the server comes up', async () => {
    const port = await freePort();
    const errors: string[] = [];
    const client = new SwarmClient({
      url: `http://127.0.0.1:${port}`,
      joinToken: 'tok',
      retry: { initialDelayMs: 50, maxDelayMs: 100 },
      onRetry: (i) => errors.push(i.error.code),
    });
    const pending = client.claim();
    await new Promise((r) => setTimeout(r, 300));
    await serve((_req, res) => json(res, 201, CLAIM), port);
    expect(await pending).toEqual(CLAIM);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toBe('ECONNREFUSED');
  });

  it('gives up at the overall deadline with the last error', async () => {
    const srv = await serve((_req, res) => unavailable(res, '1'));
    const client = new SwarmClient({ url: srv.url, joinToken: 'tok', retry: { deadlineMs: 400, maxDelayMs: 150 } });
    const err = await client.claim().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwarmError);
    expect(err).toMatchObject({ status: 503, type: 'service_unavailable', code: 'updating', retryAfterS: 1 });
    expect((err as SwarmError).message).toMatch(/gave up after \d+ attempts/);
    expect(srv.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('does not retry other errors: type/code/message come from the server', async () => {
    const srv = await serve((_req, res) =>
      json(res, 409, {
        error: { type: 'conflict_error', code: 'episode_ended', message: 'episode ep_1 already ended' },
      }),
    );
    const client = new SwarmClient({ url: srv.url, joinToken: 'tok' });
    await expect(client.end('ep_1', { taskId: 't', reward: 1 })).rejects.toMatchObject({
      name: 'SwarmError',
      status: 409,
      type: 'conflict_error',
      code: 'episode_ended',
      message: 'end: episode ep_1 already ended',
    });
    expect(srv.requests).toHaveLength(1);
  });

  it('refuses answers that do not match the protocol schemas', async () => {
    const srv = await serve((_req, res) => json(res, 201, { episodeId: 'ep_1' }));
    await expect(new SwarmClient({ url: srv.url, joinToken: 'tok' }).claim()).rejects.toMatchObject({
      type: 'invalid_response',
      code: 'unexpected_shape',
    });
  });

  it('stops retrying when the caller aborts', async () => {
    const srv = await serve((_req, res) => unavailable(res, '5'));
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop')), 100);
    await expect(new SwarmClient({ url: srv.url, joinToken: 'tok' }).claim({ signal: ac.signal })).rejects.toThrow(
      'stop',
    );
  });

  it('backs off exponentially, capped, never below Retry-After (up to the cap)', () => {
    const o = { ...RETRY_DEFAULTS, initialDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 10].map((a) => backoffMs(a, undefined, o, () => 0.5))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffMs(0, 0.5, o, () => 0.5)).toBe(500);
    expect(backoffMs(0, 30, o, () => 0.5)).toBe(1000);
  });
});
