// Supervises the engine process: starts it, loads the model and restores the last checkpoint;
// when the process dies it fails in-flight calls with a clear 503, restarts it (with backoff)
// from the last checkpoint and reports back; calls while it is down get a 503 with a retry hint.
import type { ConfigureParams, EngineInfo, EngineMethod, EngineParams, EngineResult, LoadParams } from '../../../src/shared/engine-protocol';
import { EngineExitedError, EngineProcess, type CallOptions } from '../engine/engine-process';
import type { EngineCaller } from '../rollout/engine-policy';
import { unavailable } from './errors';

export interface EngineHandle extends EngineCaller {
  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts?: CallOptions): Promise<EngineResult<M>>;
  readonly alive: boolean;
  readonly pid: number | undefined;
  dispose(): Promise<void>;
}

export type EngineFactory = (hooks: { onExit: (reason: string) => void; onLog: (line: string) => void }) => Promise<EngineHandle>;

/** The real engine: a Python process over stdio frames. */
export const processEngineFactory =
  (opts: { python?: string; startTimeoutMs?: number } = {}): EngineFactory =>
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
}

const firstLine = (s: string): string => s.split('\n')[0] ?? s;

export class EngineHost implements EngineCaller {
  status: EngineStatus = 'starting';
  info: EngineInfo | null = null;
  restarts = 0;
  lastError: string | null = null;
  private engine: EngineHandle | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: EngineHostOptions) {}

  get pid(): number | undefined {
    return this.engine?.pid;
  }

  /** First start: throws when the engine cannot start or load (the worker cannot run). */
  async start(): Promise<EngineInfo> {
    const info = await this.boot();
    this.status = 'ready';
    return info;
  }

  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts?: CallOptions): Promise<EngineResult<M>> {
    const engine = this.engine;
    if (this.status !== 'ready' || !engine) return Promise.reject(this.unavailableError());
    return engine.call(method, params, opts).catch((err: unknown) => {
      throw err instanceof EngineExitedError ? this.unavailableError(err.message) : err;
    });
  }

  async dispose(): Promise<void> {
    this.status = 'disposed';
    if (this.timer) clearTimeout(this.timer);
    const engine = this.engine;
    this.engine = null;
    await engine?.dispose();
  }

  private unavailableError(reason?: string): Error {
    const why = reason ?? this.lastError ?? `engine is ${this.status}`;
    if (this.status === 'failed') return unavailable('engine_failed', `the engine could not be restarted (${firstLine(why)}); the worker needs attention`, 30);
    return unavailable('engine_unavailable', `the engine is not available (${firstLine(why)}); it is being restarted from the last checkpoint — retry shortly`, 5);
  }

  private async boot(): Promise<EngineInfo> {
    const ref: { handle?: EngineHandle } = {};
    const engine = await this.opts.factory({ onExit: (reason) => this.onExit(ref.handle, reason), onLog: (line) => this.opts.onLog?.(line) });
    ref.handle = engine;
    this.engine = engine;
    try {
      let info = await engine.call('load', this.opts.load);
      const checkpoint = this.opts.checkpoint();
      if (checkpoint) info = await engine.call('restore', { path: checkpoint });
      if (this.opts.configure) info = { ...info, serving: await engine.call('configure', this.opts.configure) };
      this.info = info;
      return info;
    } catch (err) {
      this.engine = null;
      await engine.dispose();
      throw err;
    }
  }

  private onExit(engine: EngineHandle | undefined, reason: string): void {
    if (this.status === 'disposed' || (engine !== undefined && engine !== this.engine)) return;
    this.lastError = reason;
    this.engine = null;
    if (this.status !== 'ready') return; // a failing (re)start is handled by its caller
    this.status = 'restarting';
    this.opts.onLog?.(`[worker] engine exited: ${firstLine(reason)}; restarting from the last checkpoint`);
    this.opts.onCrash?.(reason);
    void this.restart(0);
  }

  private get disposed(): boolean {
    return this.status === 'disposed';
  }

  private async restart(attempt: number): Promise<void> {
    if (this.disposed) return;
    try {
      const info = await this.boot();
      if (this.disposed) return;
      this.restarts += 1;
      this.status = 'ready';
      this.opts.onRecovered?.(info, this.opts.checkpoint());
    } catch (err) {
      if (this.disposed) return;
      this.lastError = err instanceof Error ? err.message : String(err);
      const max = this.opts.restartAttempts ?? 5;
      if (attempt + 1 >= max) {
        this.status = 'failed';
        this.opts.onFailed?.(this.lastError);
        return;
      }
      const delay = (this.opts.backoffMs ?? 1000) * 2 ** attempt;
      this.timer = setTimeout(() => void this.restart(attempt + 1), delay);
    }
  }
}
