// Spawns and speaks to the Python engine over stdio frames (protocol v2): one typed call per
// protocol method, many in flight at once and answered by id in any order; a streamed `generate`
// delivers its delta frames to the caller's `onDelta`, and aborting its signal sends `cancel`.
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
import { RemoteError } from '../../../src/shared/result';
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
  devices?: string;
}

/**
 * The engine's command line after the interpreter. N ranks run under torchrun's own launcher
 * (`python -m torch.distributed.run`, the standard way: it sets RANK/LOCAL_RANK/WORLD_SIZE/
 * MASTER_ADDR/MASTER_PORT, `--standalone` picks a free rendezvous port on this host, and its agent
 * ends the whole job when a rank fails); every rank inherits stdio, and only rank 0 speaks frames.
 */
export function engineArgv(procs = 1): string[] {
  if (procs <= 1) return ['-u', '-m', 'agentjet_engine'];
  return [
    '-u',
    '-m',
    'torch.distributed.run',
    '--standalone',
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
}

interface Pending {
  method: EngineMethod;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  onDelta?: (delta: GenerateDelta) => void;
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

export class EngineProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exitReason: string | null = null;
  private disposed = false;
  private readonly exited: Promise<void>;
  private readonly stderrTail: string[] = [];

  private constructor(private readonly opts: EngineProcessOptions) {
    const python = findPython(opts.python, opts.env ?? process.env);
    const devices = opts.devices !== undefined ? { CUDA_VISIBLE_DEVICES: opts.devices } : {};
    this.child = spawn(python, engineArgv(opts.procs), {
      cwd: ENGINE_DIR,
      env: { ...process.env, ...opts.env, ...devices, PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const decoder = new FrameDecoder((msg) => this.log(`[worker] ${msg}`));
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
        engine.call('info', {}),
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
    const id = this.nextId++;
    return new Promise<EngineResult<M>>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.pending.has(id)) this.send('cancel', { requestId: id });
      };
      const settle = (): void => opts.signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        method,
        resolve: (value) => {
          settle();
          const parsed = engineMethods[method].result.safeParse(value);
          if (parsed.success) resolve(parsed.data as EngineResult<M>);
          else reject(new Error(`engine answered ${method} with an unexpected shape: ${parsed.error.message}`));
        },
        reject: (err) => {
          settle();
          reject(err);
        },
        ...(opts.onDelta ? { onDelta: opts.onDelta } : {}),
      });
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.child.stdin.write(encodeFrame({ id, method, params }));
    });
  }

  /** Fire-and-forget request (its answer is dropped), e.g. `cancel`. */
  private send<M extends EngineMethod>(method: M, params: EngineParams[M]): void {
    if (this.exitReason !== null) return;
    const id = this.nextId++;
    this.pending.set(id, { method, resolve: () => undefined, reject: () => undefined });
    this.child.stdin.write(encodeFrame({ id, method, params }));
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
    if (!parsed.success) {
      this.log(`[worker] ignoring an engine frame of unexpected shape: ${parsed.error.message}`);
      return;
    }
    const msg = parsed.data;
    if (typeof msg.id !== 'number') {
      if ('error' in msg) this.log(`[worker] engine error without request id: ${msg.error.message}`);
      return;
    }
    const pending = this.pending.get(msg.id);
    if (!pending) return;
    if ('delta' in msg) {
      pending.onDelta?.(msg.delta);
      return;
    }
    this.pending.delete(msg.id);
    if ('error' in msg) pending.reject(new RemoteError(msg.error));
    else pending.resolve(msg.result);
  }

  private fail(reason: string): void {
    if (this.exitReason !== null) return;
    this.exitReason = reason;
    const err = new EngineExitedError(reason);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    if (!this.disposed) this.opts.onExit?.(reason);
  }

  private log(line: string): void {
    this.opts.onLog?.(line);
  }
}
