// Runs N copies of a swarm client as separate supervised processes (the one supervisor for
// TypeScript and Python clients) and hot-swaps TypeScript code: compile first (an error leaves the
// running clients untouched), then stop each old process (SIGTERM, a short grace to abort in-flight
// episodes, SIGKILL) and start the new one in its place: a Node process started when the swap began,
// so Node's start overlaps the compile and the stop (prestart.ts). `startCommand` runs a fixed command instead
// (a Python client), with the same restarts, logs and identity environment.
import type { BackoffPolicy } from '../../shared/backoff';
import {
  ClientSlot,
  PARENT_WATCHDOG,
  type ClientStatus,
  type LaunchSpec,
  type LogLine,
  type LogStream,
  type RestartPolicy,
  type SlotHooks,
} from './client-process';
import type { CodeStore } from './code-store';
import { compileClient, defaultCacheDir, type ClientCode, type CompileMessage, type SourceFile } from './compile';
import { prestartMain, PrestartedClient, type PrepareMessage } from './prestart';
import { TypedEmitter, type Disposable } from './typed-emitter';

/** Restarts of crashed clients: 250 ms doubling to 10 s; a client up for 10 s starts over. */
export const defaultBackoff: BackoffPolicy = { initialMs: 250, factor: 2, maxMs: 10_000, resetAfterMs: 10_000 };

export interface ClientRunnerOptions {
  /** Prefix of the client ids: slot i runs as `<name>-<i>`. */
  name: string;
  serverUrl: string;
  joinToken: string;
  /** How many copies to run (default 1). */
  count?: number;
  /** Extra environment for the clients (the AGENTJET_* identity variables always win). */
  env?: Record<string, string>;
  /** Bundle cache folder (default `<os tmp>/agentjet-runner`). */
  cacheDir?: string;
  /** Extra package folders for resolving imports (see compile.ts). */
  nodePaths?: string[];
  /** Working directory of the clients; default the entry's folder. */
  cwd?: string;
  /** Records every successfully compiled version. */
  codeStore?: CodeStore;
  /** Grace between SIGTERM and SIGKILL during a hot-swap (default 2000 ms). */
  swapGraceMs?: number;
  /** Grace between SIGTERM and SIGKILL for stop() and dispose() (default 5000 ms). */
  stopGraceMs?: number;
  backoff?: Partial<BackoffPolicy>;
  /** When to restart an exited client (default: on-failure, i.e. not after exit code 0). */
  restart?: RestartPolicy;
  /** Log lines kept per client (default 1000). */
  logCapacity?: number;
  /** Longer lines are truncated (default 8192 characters). */
  maxLineLength?: number;
  /** Node binary and flags (default: this process's; under Electron it runs as Node). */
  execPath?: string;
  execArgv?: string[];
  /** Start new clients' Node processes as a swap begins, not after the old ones exited (prestart.ts; default true). */
  prestart?: boolean;
}

export interface RunnerEvents {
  'client:started': { clientId: string; slot: number; pid: number; codeVersion: string | null };
  'client:exited': {
    clientId: string;
    slot: number;
    pid: number | null;
    code: number | null;
    signal: string | null;
    restartInMs: number | null;
  };
  'client:log': {
    clientId: string;
    stream: LogStream;
    line: string;
    t: number;
    pid: number | null;
    codeVersion: string | null;
  };
  'swap:started': { clientCount: number };
  'swap:compiled': { codeVersion: string; compileMs: number };
  'swap:failed': { errors: CompileMessage[] };
  'swap:done': { codeVersion: string; previousCodeVersion: string | null; ms: number; spawnMs: number };
}

export type SwapResult =
  | {
      ok: true;
      codeVersion: string;
      compileMs: number;
      spawnMs: number;
      ms: number;
      /** The bundled sources (paths relative to `rootDir`, the entry's folder), as compiled. */
      inputs: SourceFile[];
      rootDir: string;
    }
  | { ok: false; errors: CompileMessage[] };

export interface RunnerStatus {
  name: string;
  codeVersion: string | null;
  clients: ClientStatus[];
}

interface Deployed {
  command: string;
  args: readonly string[];
  codeVersion: string | null;
  cwd: string;
}

/** A client that is not compiled: a command (and its arguments) run as is in every slot. */
export interface ClientCommand {
  command: string;
  args: readonly string[];
  cwd: string;
}

/** The environment every client inherits: this process's, minus what a client must never see. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.AGENTJET_ADMIN_TOKEN;
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return env;
}

export class ClientRunner {
  private readonly emitter = new TypedEmitter<RunnerEvents>();
  private readonly slots: ClientSlot[] = [];
  private deployed: Deployed | null = null;
  /** The packages the last compiled bundle imports first: what pre-started processes load speculatively. */
  private preloaded: readonly string[] = [];
  private count: number;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private readonly hooks: SlotHooks;

  constructor(private readonly opts: ClientRunnerOptions) {
    this.count = Math.max(0, opts.count ?? 1);
    this.hooks = {
      started: (slot, pid) =>
        this.emitter.emit('client:started', {
          clientId: slot.clientId,
          slot: slot.slot,
          pid,
          codeVersion: slot.status().codeVersion,
        }),
      exited: (slot, e) => this.emitter.emit('client:exited', { clientId: slot.clientId, slot: slot.slot, ...e }),
      log: (slot, l: LogLine) => this.emitter.emit('client:log', { clientId: slot.clientId, ...l }),
    };
  }

  on<K extends keyof RunnerEvents>(name: K, listener: (payload: RunnerEvents[K]) => void): Disposable {
    return this.emitter.on(name, listener);
  }

  /** Compiles and starts the clients; the same as a swap from nothing. */
  start(code: ClientCode): Promise<SwapResult> {
    return this.swap(code);
  }

  /** Compiles `code`; on success replaces every running client with one running the new version. */
  swap(code: ClientCode): Promise<SwapResult> {
    return this.serialize(() => this.doSwap(code));
  }

  /** Runs `cmd` in every slot (no compile, no code version); a later start/swap replaces it. */
  startCommand(cmd: ClientCommand): Promise<void> {
    return this.serialize(async () => {
      if (this.disposed) throw new Error(`client runner ${this.opts.name} is disposed`);
      const next: Deployed = { command: cmd.command, args: cmd.args, codeVersion: null, cwd: cmd.cwd };
      this.deployed = next;
      await Promise.all(
        this.ensureSlots().map(async (slot) => {
          await slot.stop(this.opts.swapGraceMs ?? 2000);
          await slot.launch(this.spec(slot, next));
        }),
      );
    });
  }

  /** Changes how many clients run; new slots start with the current code, removed ones are stopped. */
  scale(count: number): Promise<void> {
    return this.serialize(async () => {
      this.count = Math.max(0, Math.floor(count));
      const removed = this.slots.splice(this.count);
      await Promise.all(removed.map((s) => s.stop(this.opts.swapGraceMs ?? 2000)));
      const d = this.deployed;
      if (d) await Promise.all(this.ensureSlots().map((s) => (s.busy ? undefined : s.launch(this.spec(s, d)))));
    });
  }

  /** Restarts one client with the deployed code (SIGTERM, SIGKILL after the swap grace, then a fresh process). */
  restartClient(clientId: string): Promise<void> {
    return this.serialize(async () => {
      const slot = this.slot(clientId);
      const d = this.deployed;
      if (!d) throw new Error(`client runner ${this.opts.name} has no code deployed`);
      await slot.stop(this.opts.swapGraceMs ?? 2000);
      await slot.launch(this.spec(slot, d));
    });
  }

  /** Stops one client until startClient, restartClient or the next swap. */
  stopClient(clientId: string): Promise<void> {
    return this.serialize(() => this.slot(clientId).stop(this.opts.stopGraceMs ?? 5000));
  }

  /** Starts one stopped client with the deployed code (nothing when it runs already). */
  startClient(clientId: string): Promise<void> {
    return this.serialize(async () => {
      const slot = this.slot(clientId);
      const d = this.deployed;
      if (!d) throw new Error(`client runner ${this.opts.name} has no code deployed`);
      if (!slot.busy) await slot.launch(this.spec(slot, d));
    });
  }

  /** Stops every client (SIGTERM, SIGKILL after the stop grace); a later start() runs them again. */
  stop(): Promise<void> {
    return this.serialize(() => this.stopAll());
  }

  /** Stops everything and releases listeners; the runner cannot be used afterwards. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.queue.catch(() => undefined);
    await this.stopAll();
    this.emitter.clear();
  }

  status(): RunnerStatus {
    return {
      name: this.opts.name,
      codeVersion: this.deployed?.codeVersion ?? null,
      clients: this.slots.map((s) => s.status()),
    };
  }

  /** The recent log lines of one client, oldest first. */
  logs(clientId: string): LogLine[] {
    return this.slots.find((s) => s.clientId === clientId)?.logs() ?? [];
  }

  private slot(clientId: string): ClientSlot {
    const slot = this.slots.find((s) => s.clientId === clientId);
    if (!slot) throw new Error(`no client ${clientId} in runner ${this.opts.name}`);
    return slot;
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    if (this.disposed) return Promise.reject(new Error(`client runner ${this.opts.name} is disposed`));
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async doSwap(code: ClientCode): Promise<SwapResult> {
    if (this.disposed) throw new Error(`client runner ${this.opts.name} is disposed`);
    const t0 = performance.now();
    this.emitter.emit('swap:started', { clientCount: this.count });
    const spares = await this.prestart();
    try {
      return await this.compileAndReplace(code, spares, t0);
    } finally {
      for (const p of spares) p.discard(); // those that became clients stay; the rest (a compile error) go
    }
  }

  private async compileAndReplace(code: ClientCode, spares: PrestartedClient[], t0: number): Promise<SwapResult> {
    const compiled = await compileClient(code, {
      cacheDir: this.opts.cacheDir ?? defaultCacheDir(),
      nodePaths: this.opts.nodePaths,
    });
    if (!compiled.ok) {
      this.emitter.emit('swap:failed', { errors: compiled.errors });
      return { ok: false, errors: compiled.errors };
    }
    this.emitter.emit('swap:compiled', { codeVersion: compiled.codeVersion, compileMs: compiled.ms });
    const stored = this.opts.codeStore?.save(compiled).catch((err: unknown) => {
      console.error(`[runner] could not store code version ${compiled.codeVersion}:`, err);
    });
    const previousCodeVersion = this.deployed?.codeVersion ?? null;
    const next: Deployed = {
      command: this.opts.execPath ?? process.execPath,
      args: this.nodeArgs(compiled.bundlePath),
      codeVersion: compiled.codeVersion,
      cwd: this.opts.cwd ?? compiled.rootDir,
    };
    this.deployed = next;
    const run = { env: { AGENTJET_CODE_VERSION: compiled.codeVersion }, cwd: next.cwd, bundle: compiled.bundlePath };
    await this.prepare(spares, { ...run, preload: compiled.preload });
    this.preloaded = compiled.preload;
    const grace = this.opts.swapGraceMs ?? 2000;
    // Each slot is replaced on its own, so a fast-exiting client's successor starts at once and a
    // client id never runs twice at the same time.
    const spawned = await Promise.all(
      this.ensureSlots().map(async (slot, i) => {
        await slot.stop(grace);
        await slot.launch(this.spec(slot, next), spares[i]);
        return performance.now();
      }),
    );
    const spawnMs = Math.round(Math.max(t0, ...spawned) - t0);
    await stored;
    const ms = Math.round(performance.now() - t0);
    this.emitter.emit('swap:done', { codeVersion: compiled.codeVersion, previousCodeVersion, ms, spawnMs });
    return {
      ok: true,
      codeVersion: compiled.codeVersion,
      compileMs: compiled.ms,
      spawnMs,
      ms,
      inputs: compiled.inputs,
      rootDir: compiled.rootDir,
    };
  }

  /** Node's arguments for a client: the runner's flags, source maps, the parent watchdog, then `main`. */
  private nodeArgs(main: string): string[] {
    return [...(this.opts.execArgv ?? []), '--enable-source-maps', '--import', PARENT_WATCHDOG, main];
  }

  /** One process per slot running PRESTART_MAIN, loading the last bundle's leading packages (prestart.ts). */
  private async prestart(): Promise<PrestartedClient[]> {
    if (this.opts.prestart === false || this.count === 0) return [];
    const spawnOne = await this.prestartSpawner();
    // Not ensureSlots(): a first start that fails to compile leaves no slots behind.
    return Array.from({ length: this.count }, (_, i) => spawnOne(i, this.preloaded));
  }

  /** Hands each pre-started process the compiled code; one whose speculative packages do not fit is replaced. */
  private async prepare(spares: PrestartedClient[], m: PrepareMessage): Promise<void> {
    if (spares.length === 0) return;
    const spawnOne = await this.prestartSpawner();
    spares.forEach((p, i) => {
      if (p.prepare(m)) return;
      p.discard();
      spares[i] = spawnOne(i, []);
      spares[i].prepare(m);
    });
  }

  /** Spawns slot i's pre-started process: the slot's identity, no code version yet. */
  private async prestartSpawner(): Promise<(i: number, speculative: readonly string[]) => PrestartedClient> {
    const main = await prestartMain(this.opts.cacheDir ?? defaultCacheDir());
    const command = this.opts.execPath ?? process.execPath;
    const cwd = this.opts.cwd ?? this.deployed?.cwd ?? process.cwd();
    const bare: Deployed = { command, args: [], codeVersion: null, cwd };
    return (i, speculative) =>
      PrestartedClient.spawn(command, this.nodeArgs(main), cwd, this.spec(this.identity(i), bare).env, speculative);
  }

  private async stopAll(): Promise<void> {
    this.deployed = null;
    await Promise.all(this.slots.map((s) => s.stop(this.opts.stopGraceMs ?? 5000)));
  }

  private ensureSlots(): ClientSlot[] {
    const o = this.opts;
    const backoff = { ...defaultBackoff, ...o.backoff };
    while (this.slots.length < this.count) {
      const i = this.slots.length;
      const cfg = {
        backoff,
        restart: o.restart ?? 'on-failure',
        logCapacity: o.logCapacity ?? 1000,
        maxLineLength: o.maxLineLength ?? 8192,
      };
      this.slots.push(new ClientSlot(i, this.identity(i).clientId, cfg, this.hooks));
    }
    return this.slots;
  }

  private identity(i: number): { slot: number; clientId: string } {
    return { slot: i, clientId: `${this.opts.name}-${i}` };
  }

  private spec(slot: { slot: number; clientId: string }, d: Deployed): LaunchSpec {
    return {
      command: d.command,
      args: d.args,
      codeVersion: d.codeVersion,
      cwd: d.cwd,
      env: {
        ...baseEnv(),
        ...this.opts.env,
        AGENTJET_SERVER_URL: this.opts.serverUrl,
        AGENTJET_JOIN_TOKEN: this.opts.joinToken,
        AGENTJET_CLIENT_ID: slot.clientId,
        AGENTJET_CLIENT_INDEX: String(slot.slot),
        ...(d.codeVersion !== null ? { AGENTJET_CODE_VERSION: d.codeVersion } : {}),
      },
    };
  }
}
