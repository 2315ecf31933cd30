// EventFeed against a FakeEventsServer (a real WebSocket server speaking the worker's frames):
// parsing, resuming with since/boot after a lost connection, no duplicates, a new boot replayed
// in full, and the first connection's failure reported.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SwarmEvent } from '../shared/swarm-events';
import { EventFeed } from './event-feed';

interface FakeEventsServer {
  url: string;
  /** Query strings of the connections, in order. */
  queries: URLSearchParams[];
  sockets: WebSocket[];
  boot: string;
  close(): Promise<void>;
}

const ev = (seq: number): SwarmEvent => ({ type: 'client_joined', clientId: `c${seq}`, seq, time: seq });

async function fakeEventsServer(
  onConnect: (ws: WebSocket, q: URLSearchParams, s: FakeEventsServer) => void,
  status = 101,
): Promise<FakeEventsServer> {
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true });
  const s: FakeEventsServer = { url: '', queries: [], sockets: [], boot: 'boot-1', close: async () => undefined };
  http.on('upgrade', (req: IncomingMessage, socket, head) => {
    if (status !== 101) {
      socket.end(`HTTP/1.1 ${status} No\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    s.queries.push(q);
    wss.handleUpgrade(req, socket, head, (ws) => {
      s.sockets.push(ws);
      onConnect(ws, q, s);
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  s.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  s.close = async () => {
    for (const ws of s.sockets) ws.terminate();
    wss.close();
    await new Promise((r) => http.close(r));
  };
  return s;
}

const servers: FakeEventsServer[] = [];
const feeds: EventFeed[] = [];
afterEach(async () => {
  feeds.splice(0).forEach((f) => f.close());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function until(what: string, ok: () => boolean, timeoutMs = 5000): Promise<void> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('EventFeed', () => {
  it('resumes after a lost connection with since and boot, dropping what it already had', async () => {
    const server = await fakeEventsServer((ws, q, s) => {
      // As the worker does: `since` counts only within the same boot.
      const since = q.get('boot') === null || q.get('boot') === s.boot ? Number(q.get('since')) : 0;
      ws.send(JSON.stringify({ type: 'hello', bootId: s.boot, lastSeq: 3, oldestSeq: 1, gap: false }));
      // Replays from one before `since` (a duplicate the feed must drop), then a garbage frame.
      for (let seq = Math.max(1, since); seq <= 3; seq++) ws.send(JSON.stringify(ev(seq)));
      ws.send('not json');
      ws.send(JSON.stringify({ type: 'bogus', seq: 99, time: 0 }));
    });
    servers.push(server);
    const got: number[] = [];
    const problems: (string | null)[] = [];
    const errors: string[] = [];
    const feed = await EventFeed.open(
      server.url,
      'admin',
      { event: (e) => got.push(e.seq), connection: (p) => problems.push(p), error: (m) => errors.push(m) },
      { reconnectMinMs: 10 },
    );
    feeds.push(feed);
    await until('three events', () => got.length === 3);
    expect(server.queries[0]!.get('since')).toBe('0');
    server.sockets[0]!.terminate();
    await until('reconnected', () => server.queries.length === 2 && problems.includes(null));
    expect(server.queries[1]!.get('since')).toBe('3');
    expect(server.queries[1]!.get('boot')).toBe('boot-1');
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual([1, 2, 3]);
    expect(problems[0]).toMatch(/lost|reconnect/);
    expect(errors.some((m) => /not JSON/.test(m))).toBe(true);
    expect(errors.some((m) => /unexpected message/.test(m))).toBe(true);

    // The worker restarted (a new boot numbers from 1 again): its events are all taken.
    server.boot = 'boot-2';
    server.sockets[1]!.terminate();
    await until('events of the new boot', () => got.length === 6);
    expect(got).toEqual([1, 2, 3, 1, 2, 3]);
    expect(feed.seq).toBe(3);
  });

  it('rejects when the first connection is refused (e.g. a wrong token)', async () => {
    const server = await fakeEventsServer(() => undefined, 401);
    servers.push(server);
    await expect(EventFeed.open(server.url, 'wrong', { event: () => undefined })).rejects.toThrow(/401/);
  });
});
