// One named rollout replica on another host, as its supervisor (EngineHost) sees it: the sockets its
// host attaches under that name (`<host>/<i>`) are the successive engines of one replica. The
// supervisor's factory (`next`) waits for the next attach; an attach while the previous socket still
// looks open supersedes it (the host restarted and reconnected before the old connection timed out).
import WebSocket from 'ws';
import { ReplicaClose } from '../../../../src/shared/replica-attach';
import type { EngineDeadlines } from '../engine-deadlines';
import type { EngineFactory, EngineHost } from '../engine-host';
import { SocketEngine } from './socket-engine';

/** A socket attached under the slot's name, and the trainer's store address as seen from its host. */
export interface Attached {
  ws: WebSocket;
  storeHost: string;
}

export interface RemoteSlotOptions {
  startTimeoutMs?: number;
  deadlines?: Partial<EngineDeadlines> | undefined;
  log: (message: string) => void;
}

const SUPERSEDED = 'superseded by a newer attach under this name';

export class RemoteSlot {
  /** Its place in the router, once its first start succeeded (-1 before). */
  index = -1;
  /** Its supervisor. */
  host: EngineHost | null = null;
  /** The address its host reaches the trainer's store at (from its latest attach). */
  storeHost: string;
  /** The router's replica, whose `storeHost` follows each attach. */
  target: { storeHost?: string | undefined } | null = null;
  private queued: Attached | null = null;
  private waiter: { resolve: (a: Attached) => void; reject: (err: Error) => void } | null = null;
  private starting: WebSocket | null = null;
  private current: SocketEngine | null = null;
  private closed = false;

  constructor(
    readonly name: string,
    first: Attached,
    private readonly o: RemoteSlotOptions,
  ) {
    this.storeHost = first.storeHost;
    this.queued = first;
  }

  /** Whether an attach is waiting to be taken. */
  get pending(): boolean {
    return this.queued !== null;
  }

  /** A socket attached under this name: this replica's next engine. */
  offer(a: Attached): void {
    if (this.closed) return a.ws.close(ReplicaClose.released, 'the worker is stopping');
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      return w.resolve(a);
    }
    this.queued?.ws.close(ReplicaClose.superseded, SUPERSEDED);
    this.queued = a; // before the current engine fails: its supervisor's restart takes this one
    if (this.current?.alive) this.current.close(ReplicaClose.superseded, SUPERSEDED);
  }

  /** The supervisor's factory: the engine behind the next attached socket that answers `info`. */
  readonly factory: EngineFactory = async (hooks) => {
    for (;;) {
      const a =
        this.queued ??
        (await new Promise<Attached>((resolve, reject) => {
          this.waiter = { resolve, reject };
        }));
      if (this.queued === a) this.queued = null;
      if (a.ws.readyState !== WebSocket.OPEN) continue;
      this.storeHost = a.storeHost;
      if (this.target) this.target.storeHost = a.storeHost;
      this.starting = a.ws;
      try {
        const engine = await SocketEngine.start(a.ws, {
          name: this.name,
          onExit: hooks.onExit,
          onLog: hooks.onLog,
          ...(this.o.startTimeoutMs ? { startTimeoutMs: this.o.startTimeoutMs } : {}),
          deadlines: this.o.deadlines,
        });
        this.current = engine;
        return engine;
      } catch (err) {
        if (this.closed) throw err;
        this.o.log(`the engine of ${this.name} did not start: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        this.starting = null;
      }
    }
  };

  /** Refuses this replica for good: its host reads `reason` and stops it. */
  refuse(reason: string): void {
    this.current?.close(ReplicaClose.refused, reason);
  }

  /** The worker stops (or drops the slot): no more engines; every socket it holds is closed. */
  close(): void {
    this.closed = true;
    this.waiter?.reject(new Error(`rollout replica ${this.name}: the worker is stopping`));
    this.waiter = null;
    this.queued?.ws.close(ReplicaClose.released, 'the worker is stopping');
    this.queued = null;
    this.starting?.close(ReplicaClose.released, 'the worker is stopping');
  }
}
