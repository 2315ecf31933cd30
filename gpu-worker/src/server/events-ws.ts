// `GET /swarm/v1/events` (WebSocket, admin token): sends `hello`, replays the events after
// `?since=<seq>` (when `?boot=` names this boot; otherwise everything still held, with
// `gap: true`), then streams live events. A viewer that falls too far behind is closed with
// 1013 and resumes with `since`. Owns its sockets; dispose() closes them.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HelloMessage } from '../../../src/shared/swarm-events';
import { notFound, SwarmError, unauthorized } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { workerRoutes } from '../../../src/shared/worker-routes';
import { requireRole } from './auth';

export const EVENTS_PATH = workerRoutes.events.path;
const MAX_BUFFERED = 8 * 1024 * 1024;

function refuse(socket: Duplex, status: number, err: SwarmError): void {
  const body = JSON.stringify(err.toBody());
  const reason =
    status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export class EventsSocketServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  private readonly sockets = new Set<WebSocket>();
  private readonly onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

  constructor(
    private readonly server: Server,
    private readonly swarm: Swarm,
    matcher: TokenMatcher,
  ) {
    this.onUpgrade = (req, socket, head) => {
      socket.on('error', () => undefined);
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== EVENTS_PATH)
        return refuse(socket, 404, notFound('route_not_found', `no WebSocket endpoint ${url.pathname}`));
      try {
        requireRole(req.headers, matcher, 'admin');
      } catch (err) {
        const e = err instanceof SwarmError ? err : unauthorized('invalid_credentials', 'unauthorized');
        return refuse(socket, e.status, e);
      }
      const since = Number(url.searchParams.get('since') ?? 'NaN');
      const boot = url.searchParams.get('boot');
      this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, Number.isFinite(since) ? since : null, boot));
    };
    server.on('upgrade', this.onUpgrade);
  }

  private attach(ws: WebSocket, since: number | null, boot: string | null): void {
    this.sockets.add(ws);
    const log = this.swarm.events;
    const sameBoot = boot === null || boot === this.swarm.bootId;
    const from = since !== null && sameBoot ? since : 0;
    const replay = since === null ? { events: [], gap: false } : log.since(from);
    const hello: HelloMessage = {
      type: 'hello',
      bootId: this.swarm.bootId,
      lastSeq: log.lastSeq,
      oldestSeq: log.oldestSeq,
      gap: replay.gap || (since !== null && !sameBoot),
    };
    ws.send(JSON.stringify(hello));
    for (const e of replay.events) ws.send(JSON.stringify(e));
    const unsubscribe = this.swarm.onEvent((e) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED) {
        ws.close(1013, 'viewer too slow; reconnect with ?since=<last seq>');
        return;
      }
      ws.send(JSON.stringify(e));
    });
    ws.on('close', () => {
      unsubscribe();
      this.sockets.delete(ws);
    });
    ws.on('error', () => ws.terminate());
  }

  get connections(): number {
    return this.sockets.size;
  }

  async dispose(): Promise<void> {
    this.server.off('upgrade', this.onUpgrade);
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
