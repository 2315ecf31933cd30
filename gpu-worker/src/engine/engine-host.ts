// Supervises the engine process: starts it, loads the model and restores the last checkpoint;
// when the process dies it fails in-flight calls with a clear 503, restarts it (with backoff)
// from the last checkpoint and reports back; calls while it is down get a 503 with a retry hint.
// Every call carries its deadline (engine-deadlines.ts); one past it is a 504, and the engine serves on.
import type {
  ConfigureParams,
  EngineInfo,
  EngineMethod,
  EngineParams,
  EngineResult,
  LoadParams,
} from '../../../src/shared/engine-protocol';
import { backoffDelay } from '../../../src/shared/backoff';
import { engineCallDeadlineMs, type EngineDeadlines } from './engine-deadlines';
import { EngineDeadlineError, EngineExitedError, type CallOptions } from './engine-channel';
import { EngineProcess, type EngineNodes } from './engine-process';
import type { EngineCaller } from './engine-caller';
import { RemoteError } from '../../../src/shared/result';
import { gatewayTimeout, unavailable } from '../errors';

export interface EngineHandle extends EngineCaller {
  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts?: CallOptions): Promise<EngineResult<M>>;
  readonly alive: boolean;
  readonly pid: number | undefined;
  dispose(): Promise<void>;
}

export type EngineFactory = (hooks: {
  onExit: (reason: string) => void;
  onLog: (line: string) => void;
}) => Promise<EngineHandle>;

/** The real engine: a Python process over stdio frames. */
export const processEngineFactory =
  (
    opts: {
      python?: string;
      startTimeoutMs?: number;
      procs?: number;
      devices?: string | undefined;
      nodes?: EngineNodes | undefined;
    } = {},
  ): EngineFactory =>
  (hooks) =>
    EngineProcess.start({ ...opts, onExit: hooks.onExit, onLog: hooks.onLog });

export type EngineStatus = 'starting' | 'ready' | 'restarting' | 'failed' | 'disposed';

export interface EngineHostOptions {
  factory: EngineFactory;
  load: LoadParams;
  /** Generation settings applied after every (re)start (`configure`). */
  configure?: ConfigureParams;
  /** Absolute path of the checkpoint to restore after a (re)start, or null for the loaded model. */
  checkpoint: () => string | null;
  onLog?: (line: string) => void;
  /** The process died: in-flight calls are being failed. */
  onCrash?: (reason: string) => void;
  /** Restarted and restored; `info.weightVersion` is the checkpoint's. */
  onRecovered?: (info: EngineInfo, restoredFrom: string | null) => void;
  /** Gave up restarting. */
  onFailed?: (reason: string) => void;
  restartAttempts?: number;
  backoffMs?: number;
  /** The longest wait between two restart attempts (default: none). */
  backoffMaxMs?: number;
  /** Deadlines of the engine calls (defaults: DEFAULT_ENGINE_DEADLINES). */
  deadlines?: Partial<EngineDeadlines> | undefined;
}

const firstLine = (s: string): string => s.split('\n')[0] ?? s;

/** The calls whose answer is the weight version of the weights they leave loaded. */
const SETS_WEIGHTS: ReadonlySet<EngineMethod> = new Set<EngineMethod>(['load', 'restore', 'train_step']);

/** The weight version an engine answer reports, if it carries one. */
function reportedWeightVersion(result: unknown): number | null {
  if (typeof result !== 'object' || result === null || !('weightVersion' in result)) return null;
  const v = result.weightVersion;
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

/** What the swarm reads of its engine: its health, its facts and the weight version. */
export interface EngineView extends EngineCaller {
  readonly status: EngineStatus;
  readonly info: EngineInfo | null;
  readonly restarts: number;
  readonly lastError: string | null;
  readonly weightVersion: number;
}

export class EngineHost implements EngineView {
  private state: EngineStatus = 'starting';
  private facts: EngineInfo | null = null;
  private restartCount = 0;
  private error: string | null = null;
  private version = 0;
  private engine: EngineHandle | null = null;
  private load: LoadParams;
  private timer: NodeJS.Timeout | null = null;
  private readonly recoveredListeners: (() => void)[] = [];

  constructor(private readonly opts: EngineHostOptions) {
    this.load = opts.load;
  }

  /** Also tell `fn` after every restart (e.g. the weight sync, whose links died with the process). */
  onRecover(fn: () => void): void {
    this.recoveredListeners.push(fn);
  }

  /** Restarts load these params from now on (e.g. the training setup the first load's plan chose). */
  pinLoad(load: LoadParams): void {
    this.load = load;
  }

  get pid(): number | undefined {
    return this.engine?.pid;
  }

  get status(): EngineStatus {
    return this.state;
  }

  /** What the engine reported at its last (re)start. */
  get info(): EngineInfo | null {
    return this.facts;
  }

  get restarts(): number {
    return this.restartCount;
  }

  get lastError(): string | null {
    return this.error;
  }

  /** The weight version of the loaded weights, as the engine last reported it. */
  get weightVersion(): number {
    return this.version;
  }

  /** First start: throws when the engine cannot start or load (the worker cannot run). */
  async start(): Promise<EngineInfo> {
    const info = await this.boot();
    this.state = 'ready';
    return info;
  }

  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts?: CallOptions): Promise<EngineResult<M>> {
    const engine = this.engine;
    if (this.state !== 'ready' || !engine) return Promise.reject(this.unavailableError());
    return this.callOn(engine, method, params, opts).then(
      (result) => {
        if (engine === this.engine && SETS_WEIGHTS.has(method))
          this.version = reportedWeightVersion(result) ?? this.version;
        return result;
      },
      (err: unknown) => {
        if (err instanceof EngineExitedError) throw this.unavailableError(err.message);
        if (err instanceof EngineDeadlineError)
          throw gatewayTimeout('engine_timeout', `${err.message}; the call was given up (the engine serves on)`);
        // A multi-rank engine lost a rank: it answers `rank_failed` and exits; like a crash, the work is not at fault.
        if (err instanceof RemoteError && err.code === 'rank_failed') throw this.unavailableError(err.message);
        throw err;
      },
    );
  }

  /** A call on one engine with its deadline: the caller's, else the method's. */
  private callOn<M extends EngineMethod>(
    engine: EngineHandle,
    method: M,
    params: EngineParams[M],
    opts: CallOptions = {},
  ): Promise<EngineResult<M>> {
    const deadlineMs = opts.deadlineMs ?? engineCallDeadlineMs(method, params, this.opts.deadlines);
    return engine.call(method, params, { ...opts, deadlineMs });
  }

  /**
   * Loads the model afresh (initial weights, new optimizer; a reset), with changed load settings; later restarts use
   * them too.
   */
  async reload(patch: Partial<LoadParams>): Promise<EngineInfo> {
    this.load = { ...this.load, ...patch };
    const info = await this.call('load', this.load);
    this.facts = this.opts.configure ? { ...info, serving: await this.call('configure', this.opts.configure) } : info;
    return this.facts;
  }

  async dispose(): Promise<void> {
    this.state = 'disposed';
    if (this.timer) clearTimeout(this.timer);
    const engine = this.engine;
    this.engine = null;
    await engine?.dispose();
  }

  private unavailableError(reason?: string): Error {
    const why = reason ?? this.error ?? `engine is ${this.state}`;
    if (this.state === 'failed')
      return unavailable(
        'engine_failed',
        `the engine could not be restarted (${firstLine(why)}); the worker needs attention`,
        30,
      );
    return unavailable(
      'engine_unavailable',
      `the engine is not available (${firstLine(why)}); it is being restarted from the last checkpoint — retry shortly`,
      5,
    );
  }

  private async boot(): Promise<EngineInfo> {
    const ref: { handle?: EngineHandle } = {};
    const engine = await this.opts.factory({
      onExit: (reason) => this.onExit(ref.handle, reason),
      onLog: (line) => this.opts.onLog?.(line),
    });
    ref.handle = engine;
    this.engine = engine;
    try {
      let info = await this.callOn(engine, 'load', this.load);
      const checkpoint = this.opts.checkpoint();
      if (checkpoint) info = await this.callOn(engine, 'restore', { path: checkpoint });
      if (this.opts.configure) info = { ...info, serving: await this.callOn(engine, 'configure', this.opts.configure) };
      this.facts = info;
      this.version = info.weightVersion;
      return info;
    } catch (err) {
      this.engine = null;
      await engine.dispose();
      throw err;
    }
  }

  private onExit(engine: EngineHandle | undefined, reason: string): void {
    if (this.state === 'disposed' || (engine !== undefined && engine !== this.engine)) return;
    this.error = reason;
    this.engine = null;
    if (this.state !== 'ready') return; // a failing (re)start is handled by its caller
    this.state = 'restarting';
    this.opts.onLog?.(`[worker] engine exited: ${firstLine(reason)}; restarting from the last checkpoint`);
    this.opts.onCrash?.(reason);
    void this.restart(0);
  }

  private get disposed(): boolean {
    return this.state === 'disposed';
  }

  private async restart(attempt: number): Promise<void> {
    if (this.disposed) return;
    try {
      const info = await this.boot();
      if (this.disposed) return;
      this.restartCount += 1;
      this.state = 'ready';
      this.opts.onRecovered?.(info, this.opts.checkpoint());
      for (const fn of this.recoveredListeners) fn();
    } catch (err) {
      if (this.disposed) return;
      this.error = err instanceof Error ? err.message : String(err);
      const max = this.opts.restartAttempts ?? 5;
      if (attempt + 1 >= max) {
        this.state = 'failed';
        this.opts.onFailed?.(this.error);
        return;
      }
      const delay = backoffDelay(attempt, {
        initialMs: this.opts.backoffMs ?? 1000,
        maxMs: this.opts.backoffMaxMs ?? Infinity,
      });
      this.timer = setTimeout(() => void this.restart(attempt + 1), delay);
    }
  }
}
