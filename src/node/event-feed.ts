// Follows a worker's events WebSocket (admin token) for as long as it is wanted: every message
// parsed with the shared schemas, and after a lost connection it reconnects with backoff and
// resumes with `?since=<last seq>&boot=<boot id>`, so no event is missed or seen twice. An https
// worker's stream is WSS through the connection's pinned-certificate agent.
// `agentjet train` and the benchmarks use it too (src/cli/train-events.ts).
import type { Agent } from 'node:http';
import WebSocket from 'ws';
import { backoffDelay } from '../shared/backoff';
import { HelloMessageSchema, SwarmEventSchema, type HelloMessage, type SwarmEvent } from '../shared/swarm-events';
import { workerRoutes } from '../shared/worker-routes';

export interface EventFeedHandlers {
  event: (e: SwarmEvent) => void;
  hello?: (h: HelloMessage) => void;
  /** The connection was lost (reconnecting) or came back (null). */
  connection?: (problem: string | null) => void;
  error?: (message: string) => void;
}

export interface EventFeedOptions {
  /** Start after this sequence number (0: everything the worker still holds). */
  since?: number;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** An https worker's pinned-certificate agent (wss:// then goes through it). */
  agent?: Agent;
}

export class EventFeed {
  private ws: WebSocket | null = null;
  private lastSeq: number;
  private bootId: string | null = null;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private attempt = 0;

  private constructor(
    private readonly url: string,
    private readonly adminToken: string,
    private readonly h: EventFeedHandlers,
    private readonly opts: EventFeedOptions,
  ) {
    this.lastSeq = opts.since ?? 0;
  }

  /** Connects; resolves on the worker's hello, rejects when the first connection fails. */
  static async open(
    url: string,
    adminToken: string,
    h: EventFeedHandlers,
    opts: EventFeedOptions = {},
  ): Promise<EventFeed> {
    const feed = new EventFeed(url, adminToken, h, opts);
    await feed.connect(true);
    return feed;
  }

  get seq(): number {
    return this.lastSeq;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
    }
  }

  private connect(first: boolean): Promise<void> {
    const query = new URLSearchParams({ since: String(this.lastSeq) });
    if (this.bootId) query.set('boot', this.bootId);
    const ws = new WebSocket(`${this.url.replace(/^http/, 'ws')}${workerRoutes.events.path}?${query.toString()}`, {
      headers: { authorization: `Bearer ${this.adminToken}` },
      ...(this.opts.agent ? { agent: this.opts.agent } : {}),
    });
    this.ws = ws;
    return new Promise((resolve, reject) => {
      let greeted = false;
      ws.on('message', (data: WebSocket.RawData) => {
        let raw: unknown;
        try {
          raw = JSON.parse(data.toString());
        } catch {
          this.h.error?.('events: a message was not JSON');
          return;
        }
        const hello = HelloMessageSchema.safeParse(raw);
        if (hello.success) {
          // A restarted worker numbers its events from scratch: take everything it replays.
          if (this.bootId !== null && this.bootId !== hello.data.bootId) this.lastSeq = 0;
          this.bootId = hello.data.bootId;
          this.h.hello?.(hello.data);
          if (!greeted) {
            greeted = true;
            this.attempt = 0;
            if (!first) this.h.connection?.(null);
            resolve();
          }
          return;
        }
        const ev = SwarmEventSchema.safeParse(raw);
        if (!ev.success) {
          this.h.error?.(`events: unexpected message: ${ev.error.message.slice(0, 200)}`);
          return;
        }
        if (ev.data.seq <= this.lastSeq) return;
        this.lastSeq = ev.data.seq;
        this.h.event(ev.data);
      });
      ws.on('unexpected-response', (_req, res) => {
        const err = new Error(`events: HTTP ${res.statusCode ?? '?'}`);
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        if (!greeted && first) reject(err);
        else this.lost(err.message);
      });
      ws.on('error', (err) => {
        if (!greeted && first) reject(err);
      });
      ws.on('close', () => {
        if (this.ws !== ws) return;
        if (!greeted && first) {
          reject(new Error('events: the connection closed before the hello'));
          return;
        }
        this.lost('the events stream was lost; reconnecting');
      });
    });
  }

  private lost(problem: string): void {
    if (this.closed || this.timer) return;
    this.ws = null;
    this.h.connection?.(problem);
    const delay = backoffDelay(this.attempt, {
      initialMs: this.opts.reconnectMinMs ?? 250,
      maxMs: this.opts.reconnectMaxMs ?? 5000,
      maxExponent: 10,
    });
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closed) return;
      this.connect(false).catch((err: unknown) => this.lost(err instanceof Error ? err.message : String(err)));
    }, delay);
  }
}
