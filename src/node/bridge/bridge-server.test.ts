// The bridge over real sockets: static files (types, CSP, no traversal), the token and Origin
// checks on the upgrade, call/result/error frames, pushed events, the frame limit, shutdown.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { BridgeReplySchema, type BridgeReply, type WorkbenchEvent } from '../../shared/workbench-api';
import { withLocalDefaults, withTransport } from './backend-overrides';
import { BRIDGE_CSP } from './static-files';
import { hostAllowed, originAllowed, startBridgeServer, type BridgeServer } from './bridge-server';
import { FakeBackend, FakeEvents } from './test-support';

let dir: string;
let bridge: BridgeServer;
let backend: FakeBackend;
let events: FakeEvents;
let logs: string[];
const sockets: WebSocket[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-test-'));
  const web = join(dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>wb</title>');
  writeFileSync(join(web, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(web, 'assets', 'editor.worker.js'), 'self.onmessage = () => {}');
  writeFileSync(join(web, 'assets', 'codicon.ttf'), 'ttf');
  writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET');
  backend = new FakeBackend();
  events = new FakeEvents();
  logs = [];
  bridge = await startBridgeServer({
    backend,
    onEvent: events.onEvent,
    staticDir: web,
    maxFrameBytes: 64 * 1024,
    log: (l) => logs.push(l),
  });
});

afterEach(async () => {
  for (const s of sockets.splice(0)) {
    s.on('error', () => undefined);
    s.terminate();
  }
  await bridge.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw HTTP request (no URL normalisation, so traversal attempts reach the server as written). */
function get(
  path: string,
  opts: { method?: string; host?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: bridge.port,
        path,
        method: opts.method ?? 'GET',
        headers: opts.host ? { host: opts.host } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a socket; resolves with it once open, or rejects with the HTTP status of a refusal. */
function connect(query: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${bridge.port}/bridge${query}`, { headers });
    sockets.push(ws);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

class Inbox {
  private readonly frames: BridgeReply[] = [];
  private waiters: (() => void)[] = [];
  constructor(ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(BridgeReplySchema.parse(JSON.parse(String(data))));
      for (const w of this.waiters.splice(0)) w();
    });
  }
  async next(match: (f: BridgeReply) => boolean = () => true, timeoutMs = 5000): Promise<BridgeReply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex(match);
      if (i >= 0) return this.frames.splice(i, 1)[0]!;
      if (Date.now() > deadline) throw new Error('no matching frame');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }
}

const open = async (): Promise<{ ws: WebSocket; inbox: Inbox }> => {
  const ws = await connect(`?token=${bridge.token}`);
  return { ws, inbox: new Inbox(ws) };
};

describe('static files', () => {
  it('serves index.html at / with the CSP and security headers', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.body).toContain('<title>wb</title>');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(BRIDGE_CSP);
    expect(BRIDGE_CSP).toContain("worker-src 'self' blob:");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('gives assets, Monaco workers and fonts their content types', async () => {
    expect((await get('/assets/app.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get('/assets/editor.worker.js?v=2')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get('/assets/codicon.ttf')).headers['content-type']).toBe('font/ttf');
    expect((await get('/assets/missing.js')).status).toBe(404);
  });

  it.each([
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
    '/%00',
    '/%E0%A4%A',
    '//etc/passwd',
  ])('refuses traversal %s', async (path) => {
    const res = await get(path);
    expect([400, 404]).toContain(res.status);
    expect(res.body).not.toContain('TOP-SECRET');
  });

  it('allows only GET/HEAD and refuses a foreign Host (DNS rebinding)', async () => {
    expect((await get('/', { method: 'POST' })).status).toBe(405);
    expect((await get('/', { method: 'HEAD' })).status).toBe(200);
    expect((await get('/', { host: 'evil.example:80' })).status).toBe(403);
    expect((await get('/', { host: `localhost:${bridge.port}` })).status).toBe(200);
  });
});

describe('upgrade checks', () => {
  it('refuses a missing or wrong token with 401 and never logs the token', async () => {
    await expect(connect('')).rejects.toThrow('HTTP 401');
    await expect(connect('?token=wrong')).rejects.toThrow('HTTP 401');
    await expect(connect(`?token=${bridge.token}x`)).rejects.toThrow('HTTP 401');
    await open();
    expect(logs.some((l) => l.includes('wrong token'))).toBe(true);
    expect(logs.join('\n')).not.toContain(bridge.token);
    expect(bridge.pageUrl).toBe(`${bridge.url}/#token=${bridge.token}`);
  });

  it('refuses a foreign Origin and accepts its own', async () => {
    await expect(connect(`?token=${bridge.token}`, { Origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(connect(`?token=${bridge.token}`, { Origin: `http://127.0.0.1:${bridge.port + 1}` })).rejects.toThrow(
      'HTTP 403',
    );
    const ws = await connect(`?token=${bridge.token}`, { Origin: `http://127.0.0.1:${bridge.port}` });
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });

  it('has no socket anywhere but /bridge', async () => {
    await expect(
      new Promise((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${bridge.port}/other?token=${bridge.token}`);
        sockets.push(ws);
        ws.once('open', resolve);
        ws.once('unexpected-response', (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      }),
    ).rejects.toThrow('HTTP 404');
  });

  it('host and origin rules', () => {
    expect(hostAllowed('127.0.0.1:5', '127.0.0.1')).toBe(true);
    expect(hostAllowed('[::1]:5', '127.0.0.1')).toBe(true);
    expect(hostAllowed('attacker.test:5', '127.0.0.1')).toBe(false);
    expect(hostAllowed('10.0.0.7:5', '127.0.0.1')).toBe(false);
    expect(hostAllowed('10.0.0.7:5', '0.0.0.0')).toBe(true);
    expect(hostAllowed('box.lan:5', 'box.lan')).toBe(true);
    expect(hostAllowed(undefined, '127.0.0.1')).toBe(false);
    expect(originAllowed(undefined, '127.0.0.1:5')).toBe(true);
    expect(originAllowed('http://127.0.0.1:5', '127.0.0.1:5')).toBe(true);
    expect(originAllowed('null', '127.0.0.1:5')).toBe(false);
  });
});

describe('frames', () => {
  it('answers a call with its result, through the transport override', async () => {
    await bridge.close();
    bridge = await startBridgeServer({
      backend: withTransport(backend, 'websocket'),
      onEvent: events.onEvent,
      staticDir: dir,
    });
    const { ws, inbox } = await open();
    ws.send(JSON.stringify({ type: 'call', id: 7, method: 'appInfo', params: {} }));
    expect(await inbox.next()).toEqual({
      type: 'result',
      id: 7,
      result: { name: 'fake', version: '0.0.0', platform: 'test', transport: 'websocket' },
    });
  });

  it('turns bad input into error frames and keeps the connection', async () => {
    const { ws, inbox } = await open();
    ws.send('{not json');
    expect(await inbox.next()).toMatchObject({ type: 'error', id: null, error: { code: 'bad_json' } });
    ws.send(JSON.stringify({ type: 'call', id: 1, method: 'nope', params: {} }));
    expect(await inbox.next()).toMatchObject({ type: 'error', id: 1, error: { code: 'unknown_method' } });
    ws.send(JSON.stringify({ type: 'call', id: 2, method: 'metrics', params: { runId: 5 } }));
    expect(await inbox.next()).toMatchObject({ type: 'error', id: 2, error: { code: 'invalid_params' } });
    ws.send(JSON.stringify({ type: 'nope', id: 3 }));
    expect(await inbox.next()).toMatchObject({ type: 'error', id: 3, error: { code: 'bad_frame' } });
    ws.send(
      JSON.stringify({ type: 'call', id: 4, method: 'connectRemote', params: { url: 'http://x', adminToken: 't' } }),
    );
    expect(await inbox.next()).toEqual({
      type: 'error',
      id: 4,
      error: { type: 'workbench', code: 'unreachable', message: 'cannot reach http://x' },
    });
    ws.send(JSON.stringify({ type: 'call', id: 5, method: 'episodeDetail', params: { runId: 'r', episodeId: 'e' } }));
    expect(await inbox.next()).toEqual({
      type: 'error',
      id: 5,
      error: { type: 'internal', code: 'internal', message: 'boom' },
    });
    ws.send(JSON.stringify({ type: 'call', id: 8, method: 'codeVersions', params: { runId: 'r' } }));
    expect(await inbox.next()).toMatchObject({
      type: 'error',
      id: 8,
      error: { code: 'internal', message: expect.stringContaining('unserialisable reply') },
    });
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await inbox.next()).toMatchObject({ type: 'error', id: null, error: { code: 'bad_frame' } });
    ws.send(JSON.stringify({ type: 'call', id: 6, method: 'session', params: {} }));
    expect(await inbox.next()).toMatchObject({ type: 'result', id: 6, result: { runId: 'run-1' } });
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes with a clear error on a frame over the limit', async () => {
    const { ws, inbox } = await open();
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.once('close', (code, reason) => r({ code, reason: String(reason) })),
    );
    ws.send(
      JSON.stringify({
        type: 'call',
        id: 1,
        method: 'saveCode',
        params: { files: [{ path: 'a.ts', content: 'x'.repeat(70 * 1024) }] },
      }),
    );
    expect(await inbox.next()).toMatchObject({ type: 'error', id: null, error: { code: 'frame_too_large' } });
    expect(await closed).toEqual({ code: 1009, reason: 'frame too large' });
    // The server keeps serving others.
    const other = await open();
    other.ws.send(JSON.stringify({ type: 'call', id: 1, method: 'runs', params: {} }));
    expect(await other.inbox.next()).toEqual({ type: 'result', id: 1, result: { runs: [] } });
  });

  it('pushes every event to every connected socket', async () => {
    const a = await open();
    const b = await open();
    const event: WorkbenchEvent = {
      type: 'log',
      line: { t: 1, source: { kind: 'worker' }, stream: 'stdout', line: 'hello' },
    };
    events.emit(event);
    expect(await a.inbox.next()).toEqual({ type: 'event', event });
    expect(await b.inbox.next()).toEqual({ type: 'event', event });
  });
});

describe('lifecycle and wrappers', () => {
  it('close() ends sockets, unsubscribes, frees the port', async () => {
    const { ws } = await open();
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    expect(events.count).toBe(1);
    await bridge.close();
    expect(await closed).toBe(1001);
    expect(events.count).toBe(0);
    await expect(get('/')).rejects.toThrow();
  });

  it('withLocalDefaults fills only what the caller left unset', async () => {
    const wrapped = withLocalDefaults(backend, { batch: 2, groupSize: 2, maxTokens: 64 });
    await wrapped.connectLocal({ model: 'builtin', example: 'calculator-agent', clients: 2 });
    await wrapped.connectLocal({ model: 'builtin', example: 'calculator-agent', clients: 1, batch: 5 });
    expect(backend.localConnects).toEqual([
      { model: 'builtin', example: 'calculator-agent', clients: 2, batch: 2, groupSize: 2, maxTokens: 64 },
      { model: 'builtin', example: 'calculator-agent', clients: 1, batch: 5, groupSize: 2, maxTokens: 64 },
    ]);
    expect((await wrapped.runs({})).runs).toEqual([]);
  });
});
