// `GET /swarm/v1/events` (WebSocket, admin token): sends `hello`, replays the events after
// `?since=<seq>` (when `?boot=` names this boot; otherwise everything still held, with
// `gap: true`), then streams live events. A viewer that falls too far behind is closed with
// 1013 and resumes with `since`. Owns its sockets; dispose() closes them. Its upgrades come through
// upgrades.ts.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HelloMessage } from '../../../src/shared/swarm-events';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { workerRoutes } from '../../../src/shared/worker-routes';
import { admitsAdmin } from './upgrades';

export const EVENTS_PATH = workerRoutes.events.path;
const MAX_BUFFERED = 8 * 1024 * 1024;

export class EventsSocketServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly swarm: Swarm,
    private readonly matcher: TokenMatcher,
  ) {}

  /** The upgrade handler of EVENTS_PATH (upgrades.ts routes it here). */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void => {
    if (!admitsAdmin(req, socket, this.matcher)) return;
    const since = Number(url.searchParams.get('since') ?? 'NaN');
    const boot = url.searchParams.get('boot');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, Number.isFinite(since) ? since : null, boot));
  };

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
    for (const ws of this.sockets) ws.terminate();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
