// Spawns and speaks to the Python engine over stdio frames (protocol v2): one typed call per
// protocol method, many in flight at once and answered by id in any order; a streamed `generate`
// delivers its delta frames to the caller's `onDelta`, and aborting its signal sends `cancel`.
// Every call has a deadline (engine-deadlines.ts): past it the call fails and a generation is
// cancelled. A frame that answers no call (an error without an id, a malformed frame) means the
// engine lost a request: a protocol failure, handled like a crash (every call fails, the process
// is killed, the supervisor restarts it) — a lost answer would otherwise leave its caller waiting.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
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
import { ENGINE_DIR, findPython } from './find-python';
import { encodeFrame, FrameDecoder } from './frames';

export interface EngineProcessOptions {
  /** Interpreter path; default AGENTJET_PYTHON or gpu-worker/engine/.venv. */
  python?: string;
  /** Overall limit for the process to start and answer `info`. */
  startTimeoutMs?: number;
  /** Receives every stderr line of the engine (its log). */
  onLog?: (line: string) => void;
  /** Called once if the process exits while not being disposed. */
  onExit?: (reason: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Engine ranks: 1 = one process; N > 1 = FSDP over N ranks started by torchrun (see `engineArgv`). */
  procs?: number;
  /** CUDA devices the ranks may use (CUDA_VISIBLE_DEVICES, e.g. "0,1"); rank r takes the r-th. */
  devices?: string | undefined;
  /** The trainer group spans several hosts (`engineArgv`); absent: this host alone. */
  nodes?: EngineNodes | undefined;
  /** Deadlines of calls that name none (defaults: DEFAULT_ENGINE_DEADLINES). */
  deadlines?: Partial<EngineDeadlines>;
}

/** Where this host's ranks sit in a trainer group over several hosts (--nnodes, --node-rank, --rdzv-endpoint). */
export interface EngineNodes {
  nnodes: number;
  nodeRank: number;
  /** host:port of node 0's rendezvous store. */
  endpoint: string;
}

/**
 * The engine's command line after the interpreter. N ranks run under torchrun's own launcher
 * (`python -m torch.distributed.run`, the standard way: it sets RANK/LOCAL_RANK/WORLD_SIZE/
 * MASTER_ADDR/MASTER_PORT, `--standalone` picks a free rendezvous port on this host, and its agent
 * ends the whole job when a rank fails); every rank inherits stdio, and only rank 0 speaks frames.
 * Over several hosts (`nodes`), each host's launcher joins torchrun's *static* rendezvous at node 0's
 * endpoint with its `--node-rank`, so global rank 0 — the one that speaks frames — is on node 0
 * (the dynamic c10d rendezvous would number the nodes by arrival).
 */
export function engineArgv(procs = 1, nodes?: EngineNodes): string[] {
  const multi = nodes !== undefined && nodes.nnodes > 1;
  if (procs <= 1 && !multi) return ['-u', '-m', 'agentjet_engine'];
  const where = multi
    ? [
        `--nnodes=${nodes.nnodes}`,
        `--node-rank=${nodes.nodeRank}`,
        '--rdzv-backend=static',
        `--rdzv-endpoint=${nodes.endpoint}`,
      ]
    : ['--standalone'];
  return [
    '-u',
    '-m',
    'torch.distributed.run',
    ...where,
    `--nproc-per-node=${procs}`,
    '--monitor-interval=0.5',
    '-m',
    'agentjet_engine',
  ];
}

/** Per-call options: streamed deltas and cancellation (the engine answers a cancelled call with `cancelled`). */
export interface CallOptions {
  onDelta?: (delta: GenerateDelta) => void;
  signal?: AbortSignal;
  /** Fail the call after this long (default: the method's deadline, engine-deadlines.ts). */
  deadlineMs?: number;
}

interface Pending {
  method: EngineMethod;
  onDelta?: (delta: GenerateDelta) => void;
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

const nodeTimers = {
  setTimeout: (fn: () => void, ms: number): unknown => setTimeout(fn, ms).unref(),
  clearTimeout: (handle: unknown): void => clearTimeout(handle as NodeJS.Timeout),
};

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

export class EngineProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: PendingCalls<Pending> = new PendingCalls<Pending>({
    timers: nodeTimers,
    expired: (id, call, ms) => this.expired(id, call, ms),
  });
  private exitReason: string | null = null;
  private disposed = false;
  private readonly exited: Promise<void>;
  private readonly stderrTail: string[] = [];

  private constructor(private readonly opts: EngineProcessOptions) {
    const python = findPython(opts.python, opts.env ?? process.env);
    const devices = opts.devices !== undefined ? { CUDA_VISIBLE_DEVICES: opts.devices } : {};
    this.child = spawn(python, engineArgv(opts.procs, opts.nodes), {
      cwd: ENGINE_DIR,
      env: { ...process.env, ...opts.env, ...devices, PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const decoder = new FrameDecoder((msg) => this.protocolFailure(msg));
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) this.onFrame(frame);
    });
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > 20) this.stderrTail.shift();
      this.log(line);
    });
    this.child.stdin.on('error', () => undefined); // EPIPE after a crash is reported via 'exit'.
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.fail(`engine process could not start: ${err.message}`);
        resolve();
      });
      this.child.on('exit', (code, signal) => {
        const tail = this.stderrTail.slice(-5).join('\n');
        this.fail(`engine process exited (${signal ?? `code ${code}`})${tail ? `; last log lines:\n${tail}` : ''}`);
        resolve();
      });
    });
  }

  /** Spawns the engine and waits (up to startTimeoutMs) until it answers `info`. */
  static async start(opts: EngineProcessOptions = {}): Promise<EngineProcess> {
    const engine = new EngineProcess(opts);
    const timeoutMs = opts.startTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        engine.call('info', {}, { deadlineMs: timeoutMs }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`engine did not answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return engine;
    } catch (err) {
      await engine.dispose();
      throw err instanceof Error ? err : new Error(String(err));
    } finally {
      clearTimeout(timer);
    }
  }

  get alive(): boolean {
    return this.exitReason === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts: CallOptions = {}): Promise<EngineResult<M>> {
    if (this.exitReason !== null) return Promise.reject(new EngineExitedError(this.exitReason));
    if (opts.signal?.aborted) return Promise.reject(cancelledError());
    const deadlineMs = opts.deadlineMs ?? engineCallDeadlineMs(method, params, this.opts.deadlines);
    const { id, promise } = this.pending.add(
      { method, ...(opts.onDelta ? { onDelta: opts.onDelta } : {}) },
      deadlineMs,
    );
    const onAbort = (): void => {
      if (this.pending.has(id)) this.send('cancel', { requestId: id });
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.child.stdin.write(encodeFrame({ id, method, params }));
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
    if (this.exitReason !== null) return;
    const { id, promise } = this.pending.add({ method }, engineCallDeadlineMs(method, params, this.opts.deadlines));
    promise.catch(() => undefined);
    this.child.stdin.write(encodeFrame({ id, method, params }));
  }

  /** A call past its deadline: it fails; a generation is cancelled so it frees its rows. */
  private expired(id: number, call: Pending, ms: number): Error {
    this.log(`[worker] engine call ${id} (${call.method}) got no answer within ${ms} ms; failing it`);
    if (call.method === 'generate') this.send('cancel', { requestId: id });
    return new EngineDeadlineError(call.method, ms);
  }

  /** Closes stdin (the engine exits on EOF), then kills it if it lingers. */
  async dispose(): Promise<void> {
    if (this.disposed) return this.exited;
    this.disposed = true;
    if (this.exitReason === null) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  private onFrame(frame: unknown): void {
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
   * which call it was is unknown, so every call fails, the process is killed and the supervisor
   * restarts it, as after a crash.
   */
  private protocolFailure(what: string): void {
    if (this.exitReason !== null) return;
    const reason = `engine protocol failure: ${what.slice(0, 500)}`;
    this.log(`[worker] ${reason}; failing every call in flight and restarting the engine`);
    this.fail(reason);
    this.child.kill('SIGKILL');
  }

  private fail(reason: string): void {
    if (this.exitReason !== null) return;
    this.exitReason = reason;
    const err = new EngineExitedError(reason);
    this.pending.dispose(err);
    if (!this.disposed) this.opts.onExit?.(reason);
  }

  private log(line: string): void {
    this.opts.onLog?.(line);
  }
}
