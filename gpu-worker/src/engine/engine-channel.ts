// The calls of one engine connection, whatever carries its frames: a local process's stdio
// (engine-process.ts) or a remote replica's WebSocket (replicas/socket-engine.ts). One typed call per
// protocol method, many in flight at once and answered by id in any order; a streamed `generate`
// delivers its delta frames to the caller's `onDelta`, and aborting its signal sends `cancel`. Every
// call has a deadline (engine-deadlines.ts): past it the call fails and a generation is cancelled. A
// frame that answers no call (an error without an id, a malformed frame) means the engine lost a
// request: a protocol failure, handled like a crash (every call fails and the transport is ended) —
// a lost answer would otherwise leave its caller waiting.
import {
  EngineResponseSchema,
  engineMethods,
  type EngineMethod,
  type EngineParams,
  type EngineResult,
  type GenerateDelta,
} from '../../../src/shared/engine-protocol';
import { PendingCalls } from '../../../src/shared/pending-calls';
import { RemoteError } from '../../../src/shared/result';
import { engineCallDeadlineMs, type EngineDeadlines } from './engine-deadlines';

/** Per-call options: streamed deltas and cancellation (the engine answers a cancelled call with `cancelled`). */
export interface CallOptions {
  onDelta?: (delta: GenerateDelta) => void;
  signal?: AbortSignal;
  /** Fail the call after this long (default: the method's deadline, engine-deadlines.ts). */
  deadlineMs?: number;
}

/** The error of a call the engine did not answer within its deadline. */
export class EngineDeadlineError extends RemoteError {
  constructor(
    readonly method: EngineMethod,
    readonly ms: number,
  ) {
    super({
      type: 'timeout',
      code: 'engine_deadline',
      message: `the engine did not answer ${method} within ${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`,
    });
    this.name = 'EngineDeadlineError';
  }
}

/** The error of a call whose signal was aborted before the engine started it. */
export function cancelledError(): RemoteError {
  return new RemoteError({ type: 'cancelled', code: 'cancelled', message: 'the request was cancelled' });
}

export class EngineExitedError extends Error {
  readonly type = 'engine_unavailable';
  constructor(message: string) {
    super(message);
    this.name = 'EngineExitedError';
  }
}

/** What carries the frames. */
export interface ChannelTransport {
  /** Sends one request frame. */
  send(frame: { id: number; method: EngineMethod; params: unknown }): void;
  /** The peer broke the protocol: end the transport at once (the channel has already failed). */
  abort(): void;
}

export interface EngineChannelOptions {
  log: (line: string) => void;
  /** Called once when the channel fails while not disposed (the engine is gone). */
  onExit?: (reason: string) => void;
  /** Deadlines of calls that name none (defaults: DEFAULT_ENGINE_DEADLINES). */
  deadlines?: Partial<EngineDeadlines> | undefined;
}

interface Pending {
  method: EngineMethod;
  onDelta?: (delta: GenerateDelta) => void;
}

const nodeTimers = {
  setTimeout: (fn: () => void, ms: number): unknown => setTimeout(fn, ms).unref(),
  clearTimeout: (handle: unknown): void => clearTimeout(handle as NodeJS.Timeout),
};

export class EngineChannel {
  private readonly pending: PendingCalls<Pending> = new PendingCalls<Pending>({
    timers: nodeTimers,
    expired: (id, call, ms) => this.expired(id, call, ms),
  });
  private reason: string | null = null;
  private quiet = false;

  constructor(
    private readonly transport: ChannelTransport,
    private readonly o: EngineChannelOptions,
  ) {}

  /** Why the channel failed, or null while it works. */
  get exitReason(): string | null {
    return this.reason;
  }

  /** Its owner is closing it: a failure from now on is not reported through `onExit`. */
  silence(): void {
    this.quiet = true;
  }

  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts: CallOptions = {}): Promise<EngineResult<M>> {
    if (this.reason !== null) return Promise.reject(new EngineExitedError(this.reason));
    if (opts.signal?.aborted) return Promise.reject(cancelledError());
    const deadlineMs = opts.deadlineMs ?? engineCallDeadlineMs(method, params, this.o.deadlines);
    const { id, promise } = this.pending.add(
      { method, ...(opts.onDelta ? { onDelta: opts.onDelta } : {}) },
      deadlineMs,
    );
    const onAbort = (): void => {
      if (this.pending.has(id)) this.send('cancel', { requestId: id });
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.transport.send({ id, method, params });
    return promise.then(
      (value) => {
        opts.signal?.removeEventListener('abort', onAbort);
        const parsed = engineMethods[method].result.safeParse(value);
        if (!parsed.success)
          throw new Error(`engine answered ${method} with an unexpected shape: ${parsed.error.message}`);
        return parsed.data as EngineResult<M>;
      },
      (err: unknown) => {
        opts.signal?.removeEventListener('abort', onAbort);
        throw err;
      },
    );
  }

  /** Fire-and-forget request (its answer is dropped), e.g. `cancel`. */
  private send<M extends EngineMethod>(method: M, params: EngineParams[M]): void {
    if (this.reason !== null) return;
    const { id, promise } = this.pending.add({ method }, engineCallDeadlineMs(method, params, this.o.deadlines));
    promise.catch(() => undefined);
    this.transport.send({ id, method, params });
  }

  /** A call past its deadline: it fails; a generation is cancelled so it frees its rows. */
  private expired(id: number, call: Pending, ms: number): Error {
    this.o.log(`[worker] engine call ${id} (${call.method}) got no answer within ${ms} ms; failing it`);
    if (call.method === 'generate') this.send('cancel', { requestId: id });
    return new EngineDeadlineError(call.method, ms);
  }

  /** One frame from the engine (already parsed as JSON). */
  receive(frame: unknown): void {
    const parsed = EngineResponseSchema.safeParse(frame);
    if (!parsed.success)
      return this.protocolFailure(`the engine sent a frame of unexpected shape: ${parsed.error.message}`);
    const msg = parsed.data;
    if (typeof msg.id !== 'number') {
      const what =
        'error' in msg
          ? `an error without a request id (${msg.error.code}: ${msg.error.message})`
          : `a frame with id ${JSON.stringify(msg.id)}`;
      return this.protocolFailure(`the engine answered ${what}`);
    }
    if ('delta' in msg) {
      this.pending.get(msg.id)?.onDelta?.(msg.delta);
      return;
    }
    if ('error' in msg) this.pending.reject(msg.id, new RemoteError(msg.error));
    else this.pending.resolve(msg.id, msg.result);
  }

  /**
   * The engine lost track of a request (it could not read the frame, or its answer cannot be read):
   * which call it was is unknown, so every call fails and the transport is ended, as after a crash.
   */
  protocolFailure(what: string): void {
    if (this.reason !== null) return;
    const reason = `engine protocol failure: ${what.slice(0, 500)}`;
    this.o.log(`[worker] ${reason}; failing every call in flight and restarting the engine`);
    this.fail(reason);
    this.transport.abort();
  }

  /** The engine is gone: every call in flight and every later one fails with `reason`. */
  fail(reason: string): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.pending.dispose(new EngineExitedError(reason));
    if (!this.quiet) this.o.onExit?.(reason);
  }
}
