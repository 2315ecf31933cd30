// A rollout replica on another host as the worker sees it: the engine of an `agentjet replica` host,
// spoken to over the WebSocket that host dialled in with (src/shared/replica-attach.ts), one JSON text
// message per engine frame, through the same EngineChannel as a local engine's stdio. The socket ending
// is the engine exiting: every call in flight fails (503 upstream) and the replica's supervisor waits
// for the host to dial in again. A message that is not a frame is a protocol failure (the socket is
// closed); ws bounds each message (REPLICA_MAX_FRAME_BYTES), and a peer that stops answering pings is
// dropped, so a half-open connection never holds calls.
import WebSocket from 'ws';
import type { EngineMethod, EngineParams, EngineResult } from '../../../../src/shared/engine-protocol';
import { ReplicaClose } from '../../../../src/shared/replica-attach';
import { EngineChannel, type CallOptions } from '../engine-channel';
import type { EngineDeadlines } from '../engine-deadlines';
import type { EngineHandle } from '../engine-host';

export interface SocketEngineOptions {
  /** Who it is, for log lines: the replica's name. */
  name: string;
  onExit: (reason: string) => void;
  onLog: (line: string) => void;
  /** How long the remote engine may take to answer `info` (its process starting). */
  startTimeoutMs?: number;
  deadlines?: Partial<EngineDeadlines> | undefined;
  /** Ping period; a peer that missed the previous ping is dropped (default 15 s). */
  pingMs?: number;
}

/** Pings `ws` every `ms`; a peer that did not answer the previous ping is terminated. Returns the stopper. */
export function keepAlive(ws: WebSocket, ms: number): () => void {
  let answered = true;
  const onPong = (): void => {
    answered = true;
  };
  ws.on('pong', onPong);
  const timer = setInterval(() => {
    if (!answered) return ws.terminate();
    answered = false;
    ws.ping();
  }, ms);
  timer.unref();
  return () => {
    clearInterval(timer);
    ws.off('pong', onPong);
  };
}

/** A close frame's reason: at most 123 bytes of UTF-8 (ws throws on more). */
export function closeReason(reason: string): string {
  let r = reason.slice(0, 123);
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}

/** A message's bytes as text (ws hands over a Buffer, fragments, or an ArrayBuffer). */
export function messageText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

export class SocketEngine implements EngineHandle {
  private readonly channel: EngineChannel;
  private readonly closed: Promise<void>;
  private disposed = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly o: SocketEngineOptions,
  ) {
    this.channel = new EngineChannel(
      {
        send: (frame) => ws.send(JSON.stringify(frame)),
        abort: () => this.close(ReplicaClose.badFrame, 'protocol failure'),
      },
      { log: o.onLog, onExit: o.onExit, deadlines: o.deadlines },
    );
    const stopPings = keepAlive(ws, o.pingMs ?? 15_000);
    ws.on('message', (data) => {
      let frame: unknown;
      try {
        frame = JSON.parse(messageText(data));
      } catch (err) {
        return this.channel.protocolFailure(`a message that is not JSON (${err instanceof Error ? err.message : err})`);
      }
      this.channel.receive(frame);
    });
    ws.on('error', (err) => this.channel.fail(`the replica socket failed: ${err.message}`));
    this.closed = new Promise((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) resolve();
      ws.on('close', (code, reason) => {
        stopPings();
        const why = reason.toString('utf8');
        this.channel.fail(`rollout replica ${o.name} disconnected (${code}${why ? `: ${why}` : ''})`);
        resolve();
      });
    });
    if (ws.readyState !== WebSocket.OPEN) this.channel.fail(`rollout replica ${o.name}: its socket is not open`);
  }

  /** Wraps an attached socket and waits (up to startTimeoutMs) until the remote engine answers `info`. */
  static async start(ws: WebSocket, o: SocketEngineOptions): Promise<SocketEngine> {
    const engine = new SocketEngine(ws, o);
    const timeoutMs = o.startTimeoutMs ?? 120_000;
    try {
      await engine.call('info', {}, { deadlineMs: timeoutMs });
      return engine;
    } catch (err) {
      await engine.dispose();
      throw err instanceof Error ? err : new Error(String(err));
    }
  }

  get alive(): boolean {
    return this.channel.exitReason === null;
  }

  /** The engine process is on another host. */
  get pid(): number | undefined {
    return undefined;
  }

  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts: CallOptions = {}): Promise<EngineResult<M>> {
    return this.channel.call(method, params, opts);
  }

  /**
   * Ends the socket with `code` (the replica host reads why, ReplicaClose): the engine counts as gone at
   * once — its calls fail now, not when the closing handshake ends — and a peer that does not finish the
   * handshake is cut off after 5 s.
   */
  close(code: number, reason: string): void {
    this.channel.fail(`rollout replica ${this.o.name}: ${reason}`);
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)
      this.ws.close(code, closeReason(reason));
    setTimeout(() => this.ws.terminate(), 5_000).unref();
  }

  async dispose(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      this.channel.silence();
      this.close(ReplicaClose.released, 'the worker released this replica');
    }
    await this.closed;
  }
}
