// The browser transport: the WorkbenchApi over the `agentjet ui` WebSocket bridge. Calls are
// `{type:'call', id, method, params}` frames matched to replies by id; event frames go to the
// subscribers. When the socket drops, calls in flight fail with a clear error (they may or may not
// have run), and the socket reconnects with backoff; calls made while it is down wait for it
// (up to `queueTimeoutMs`). The socket and the clock are injected, so tests drive it with fakes.
import { WorkbenchError, type WorkbenchMethod, type WorkbenchTransport } from '../../../shared/workbench-api';
import { backoffDelay, type BackoffPolicy } from '../../../shared/backoff';
import { PendingCalls } from '../../../shared/pending-calls';
import { decodeFrame, encodeCall } from './bridge-frames';

/** Reconnect delays of the bridge socket: exponential, capped, in the upper half of the window (jitter). */
export const RECONNECT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 10_000, jitter: [0.5, 1] };

export interface BridgeSocket {
  send(text: string): void;
  close(): void;
}

export interface SocketHandlers {
  open(): void;
  message(text: string): void;
  close(code: number, reason: string): void;
}

export type OpenSocket = (url: string, handlers: SocketHandlers) => BridgeSocket;

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  random(): number;
}

export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface WsTransportOptions {
  url: string;
  openSocket: OpenSocket;
  clock: Clock;
  backoff?: BackoffPolicy;
  queueTimeoutMs?: number;
  /** A problem that belongs to no call (a malformed frame, a bridge-level error). */
  onProblem?: (message: string) => void;
}

interface Queued {
  method: WorkbenchMethod;
  params: unknown;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: unknown;
}

export class WsTransport implements WorkbenchTransport {
  private readonly pending = new PendingCalls<WorkbenchMethod>();
  private readonly queue: Queued[] = [];
  private readonly eventListeners = new Set<(raw: unknown) => void>();
  private readonly statusListeners = new Set<(s: ConnectionStatus) => void>();
  private socket: BridgeSocket | null = null;
  private generation = 0;
  private attempt = 0;
  private reconnectTimer: unknown = null;
  private disposed = false;
  private _status: ConnectionStatus = 'connecting';

  constructor(private readonly opts: WsTransportOptions) {}

  get status(): ConnectionStatus {
    return this._status;
  }

  /** Opens the socket (once); later drops reconnect by themselves. */
  start(): void {
    if (this.socket || this.disposed) return;
    this.connect();
  }

  call(method: WorkbenchMethod, params: unknown): Promise<unknown> {
    if (this.disposed)
      return Promise.reject(new WorkbenchError('closed', `${method}: the workbench connection is closed`));
    if (this._status === 'open' && this.socket) return this.send(this.socket, method, params);
    return new Promise((resolve, reject) => {
      const entry: Queued = { method, params, resolve, reject, timer: null };
      entry.timer = this.opts.clock.setTimeout(() => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(new WorkbenchError('disconnected', `${method}: no connection to the workbench (still ${this._status})`));
      }, this.opts.queueTimeoutMs ?? 15_000);
      this.queue.push(entry);
    });
  }

  subscribe(listener: (raw: unknown) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onStatus(listener: (s: ConnectionStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.generation++;
    if (this.reconnectTimer !== null) this.opts.clock.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.socket?.close();
    this.socket = null;
    this.failPending('closed', 'the workbench connection was closed');
    this.failQueue('closed', 'the workbench connection was closed');
    this.setStatus('closed');
  }

  private send(socket: BridgeSocket, method: WorkbenchMethod, params: unknown): Promise<unknown> {
    const { id, promise } = this.pending.add(method);
    try {
      socket.send(encodeCall(id, method, params));
    } catch (err) {
      this.pending.reject(
        id,
        new WorkbenchError(
          'send_failed',
          `${method}: could not send (${err instanceof Error ? err.message : String(err)})`,
        ),
      );
    }
    return promise;
  }

  private connect(): void {
    const gen = ++this.generation;
    const current = (): boolean => gen === this.generation && !this.disposed;
    try {
      this.socket = this.opts.openSocket(this.opts.url, {
        open: () => current() && this.handleOpen(),
        message: (text) => current() && this.handleMessage(text),
        close: (code, reason) => current() && this.handleClose(code, reason),
      });
    } catch (err) {
      this.opts.onProblem?.(`could not open the bridge socket: ${err instanceof Error ? err.message : String(err)}`);
      this.handleClose(1006, 'open failed');
    }
  }

  private handleOpen(): void {
    this.attempt = 0;
    this.setStatus('open');
    const socket = this.socket;
    if (!socket) return;
    for (const q of this.queue.splice(0)) {
      this.opts.clock.clearTimeout(q.timer);
      this.send(socket, q.method, q.params).then(q.resolve, q.reject);
    }
  }

  private handleMessage(text: string): void {
    const f = decodeFrame(text);
    if (f.kind === 'result') {
      if (!this.pending.resolve(f.id, f.result)) this.opts.onProblem?.(`bridge replied to unknown call ${f.id}`);
    } else if (f.kind === 'error') {
      if (f.id === null || !this.pending.reject(f.id, new WorkbenchError(f.error.code, f.error.message)))
        this.opts.onProblem?.(`bridge error: ${f.error.message}`);
    } else if (f.kind === 'event') {
      for (const l of [...this.eventListeners]) l(f.event);
    } else {
      this.opts.onProblem?.(f.reason);
    }
  }

  private handleClose(code: number, reason: string): void {
    this.socket = null;
    const why = reason ? ` (${reason})` : code && code !== 1006 && code !== 1005 ? ` (code ${code})` : '';
    this.failPending(
      'disconnected',
      `the connection to the workbench was lost before the reply came${why}; reconnecting`,
    );
    if (this.disposed) return;
    this.setStatus('reconnecting');
    const delay = Math.round(
      backoffDelay(this.attempt++, this.opts.backoff ?? RECONNECT_BACKOFF, this.opts.clock.random()),
    );
    this.reconnectTimer = this.opts.clock.setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.disposed) this.connect();
    }, delay);
  }

  /** Fails every call in flight; each error names its method. */
  private failPending(code: string, message: string): void {
    this.pending.rejectAll((method) => new WorkbenchError(code, `${method}: ${message}`));
  }

  private failQueue(code: string, message: string): void {
    for (const q of this.queue.splice(0)) {
      this.opts.clock.clearTimeout(q.timer);
      q.reject(new WorkbenchError(code, `${q.method}: ${message}`));
    }
  }

  private setStatus(s: ConnectionStatus): void {
    if (s === this._status) return;
    this._status = s;
    for (const l of [...this.statusListeners]) l(s);
  }
}

/** The real socket: the browser's WebSocket behind the `OpenSocket` shape. */
export const openBrowserSocket: OpenSocket = (url, h) => {
  const ws = new WebSocket(url);
  ws.onopen = () => h.open();
  ws.onmessage = (e: MessageEvent) => {
    if (typeof e.data === 'string') h.message(e.data);
  };
  ws.onclose = (e: CloseEvent) => h.close(e.code, e.reason);
  return { send: (t) => ws.send(t), close: () => ws.close() };
};

export const browserClock: Clock = {
  setTimeout: (fn, ms) => window.setTimeout(fn, ms),
  clearTimeout: (h) => {
    if (typeof h === 'number') window.clearTimeout(h);
  },
  random: () => Math.random(),
};
