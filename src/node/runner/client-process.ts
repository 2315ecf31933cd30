// One supervised client slot: spawns a client process (`node bundle.mjs` for a compiled TypeScript
// client, `python3 client.py` for a Python one) in its own process group, captures its output
// line by line into a bounded ring, restarts it with backoff when it crashes, and stops it with
// SIGTERM, then SIGKILL after a grace period.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { attemptAfterCrash, backoffDelay, type BackoffPolicy } from '../../shared/backoff';
import { LogRing } from './log-ring';
import type { PrestartedClient } from './prestart';
import { groupAlive } from './process-group';

export type ClientState = 'starting' | 'running' | 'stopping' | 'backoff' | 'crashed' | 'exited';
export type LogStream = 'stdout' | 'stderr' | 'system';
export type RestartPolicy = 'on-failure' | 'always' | 'never';

export interface LogLine {
  t: number;
  stream: LogStream;
  line: string;
  pid: number | null;
  codeVersion: string | null;
}

export interface ClientStatus {
  clientId: string;
  slot: number;
  pid: number | null;
  state: ClientState;
  /** Restarts after crashes of the current code version. */
  restarts: number;
  codeVersion: string | null;
  startedAt: number | null;
  /** When the client last wrote a line (its own output, not the runner's notes). */
  lastLogAt: number | null;
  lastExit: { code: number | null; signal: string | null; at: number } | null;
}

export interface LaunchSpec {
  command: string;
  args: readonly string[];
  /** The code version it runs (null: not a compiled bundle). */
  codeVersion: string | null;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface SlotConfig {
  backoff: BackoffPolicy;
  restart: RestartPolicy;
  logCapacity: number;
  maxLineLength: number;
}

export interface SlotHooks {
  started(slot: ClientSlot, pid: number): void;
  exited(
    slot: ClientSlot,
    exit: { pid: number | null; code: number | null; signal: string | null; restartInMs: number | null },
  ): void;
  log(slot: ClientSlot, line: LogLine): void;
}

const isWindows = process.platform === 'win32';

/**
 * Preloaded into every client: if the runner dies without stopping it (the client is re-parented),
 * the client gets SIGTERM, so the SDK can abort its episodes, and exits at the latest 5 s later.
 */
export const PARENT_WATCHDOG = `data:text/javascript,${encodeURIComponent(
  'const p=Number(process.env.AGENTJET_PARENT_PID);' +
    'if(p>0){const t=setInterval(()=>{if(process.ppid!==p){clearInterval(t);' +
    "setTimeout(()=>process.exit(1),5000).unref();process.kill(process.pid,'SIGTERM')}},1000);t.unref()}",
)}`;

/** Signals the client's whole process group (its own children too); ignores an already-gone group. */
function signalTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (isWindows) child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // No such group (already gone): fall back to the process itself, which may also be gone.
    child.kill(signal);
  }
}

/** Resolves once no process of the client's group is left (bounded: children may be slow to die). */
async function groupGone(pid: number | null, timeoutMs: number): Promise<void> {
  if (pid === null || isWindows) return;
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export class ClientSlot {
  private child: ChildProcess | null = null;
  private spec: LaunchSpec | null = null;
  private state: ClientState = 'exited';
  private attempt = 0;
  private restarts = 0;
  private startedAt: number | null = null;
  private lastLogAt: number | null = null;
  private lastExit: ClientStatus['lastExit'] = null;
  private lastCodeVersion: string | null = null;
  private backoffTimer: NodeJS.Timeout | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private exitWaiters: (() => void)[] = [];
  private readonly ring: LogRing<LogLine>;

  constructor(
    readonly slot: number,
    readonly clientId: string,
    private readonly cfg: SlotConfig,
    private readonly hooks: SlotHooks,
  ) {
    this.ring = new LogRing(cfg.logCapacity);
  }

  /**
   * Starts the given code in this slot (resetting its restart count); resolves once spawned. With
   * `prestarted` (a process already running Node, prepared for this code), that process becomes the
   * client, unless it is gone, when a new one is spawned as usual; restarts after a crash always spawn.
   */
  launch(spec: LaunchSpec, prestarted?: PrestartedClient): Promise<void> {
    if (this.child) throw new Error(`client ${this.clientId} is still running; stop it first`);
    this.clearBackoff();
    this.spec = spec;
    this.attempt = 0;
    this.restarts = 0;
    return this.spawnChild(spec, prestarted?.adopt() ?? null);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. Cancels a pending restart. */
  async stop(graceMs: number): Promise<void> {
    this.spec = null;
    this.clearBackoff();
    const child = this.child;
    if (!child) {
      if (this.state === 'backoff') this.state = 'exited';
      return;
    }
    const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    if (this.state !== 'stopping') {
      this.state = 'stopping';
      this.note(`stopping (SIGTERM, SIGKILL after ${graceMs} ms)`);
      signalTree(child, 'SIGTERM');
      this.killTimer = setTimeout(() => {
        this.note('did not exit within the grace period: SIGKILL');
        signalTree(child, 'SIGKILL');
      }, graceMs);
    }
    await exited;
  }

  status(): ClientStatus {
    return {
      clientId: this.clientId,
      slot: this.slot,
      pid: this.child?.pid ?? null,
      state: this.state,
      restarts: this.restarts,
      codeVersion: this.lastCodeVersion,
      startedAt: this.startedAt,
      lastLogAt: this.lastLogAt,
      lastExit: this.lastExit,
    };
  }

  logs(): LogLine[] {
    return this.ring.toArray();
  }

  get busy(): boolean {
    return this.child !== null || this.backoffTimer !== null;
  }

  private spawnChild(spec: LaunchSpec, adopted: ChildProcess | null = null): Promise<void> {
    const child =
      adopted ??
      spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env, AGENTJET_PARENT_PID: String(process.pid) },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: !isWindows,
      });
    this.child = child;
    this.state = 'starting';
    this.startedAt = Date.now();
    this.lastCodeVersion = spec.codeVersion;
    const pid = child.pid ?? null;
    this.capture(child.stdout, 'stdout', pid, spec.codeVersion);
    this.capture(child.stderr, 'stderr', pid, spec.codeVersion);
    return new Promise<void>((resolve) => {
      const spawned = (): void => {
        if (this.child === child && this.state === 'starting') this.state = 'running';
        if (pid !== null) this.hooks.started(this, pid);
        resolve();
      };
      if (adopted) spawned();
      else child.once('spawn', spawned);
      child.on('error', (err) => {
        this.note(`process error: ${err.message}`);
        if (child.pid === undefined) {
          this.onExit(child, null, null);
          resolve();
        }
      });
      child.once('exit', (code, signal) => this.onExit(child, code, signal));
    });
  }

  private capture(
    stream: Readable | null,
    name: 'stdout' | 'stderr',
    pid: number | null,
    codeVersion: string | null,
  ): void {
    if (!stream) return;
    const rl = createInterface({ input: stream, crlfDelay: Infinity });
    rl.on('line', (raw) => {
      const line = raw.length > this.cfg.maxLineLength ? `${raw.slice(0, this.cfg.maxLineLength)}… [truncated]` : raw;
      this.push({ t: Date.now(), stream: name, line, pid, codeVersion });
    });
    stream.on('error', () => undefined);
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    if (this.killTimer) clearTimeout(this.killTimer);
    this.killTimer = null;
    // Anything the client left behind in its group goes with it.
    signalTree(child, 'SIGKILL');
    const now = Date.now();
    this.lastExit = { code, signal, at: now };
    const pid = child.pid ?? null;
    const spec = this.spec;
    const stopping = this.state === 'stopping' || spec === null;
    const failed = code !== 0;
    let restartInMs: number | null = null;
    if (!stopping && (this.cfg.restart === 'always' || (this.cfg.restart === 'on-failure' && failed))) {
      this.attempt = attemptAfterCrash(this.attempt, now - (this.startedAt ?? now), this.cfg.backoff);
      restartInMs = backoffDelay(this.attempt, this.cfg.backoff);
      this.attempt++;
      this.state = 'backoff';
      this.backoffTimer = setTimeout(() => {
        this.backoffTimer = null;
        if (this.spec !== spec) return;
        this.restarts++;
        void this.spawnChild(spec);
      }, restartInMs);
    } else {
      this.state = !stopping && failed ? 'crashed' : 'exited';
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    this.note(`exited (${how})${restartInMs !== null ? `; restarting in ${restartInMs} ms` : ''}`, pid);
    this.hooks.exited(this, { pid, code, signal, restartInMs });
    const waiters = this.exitWaiters;
    this.exitWaiters = [];
    void groupGone(pid, 1000).then(() => {
      for (const w of waiters) w();
    });
  }

  private clearBackoff(): void {
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.backoffTimer = null;
  }

  /** A line from the runner itself about this client (stream 'system'). */
  private note(line: string, pid = this.child?.pid ?? null): void {
    this.push({ t: Date.now(), stream: 'system', line, pid, codeVersion: this.lastCodeVersion });
  }

  private push(line: LogLine): void {
    this.ring.push(line);
    if (line.stream !== 'system') this.lastLogAt = line.t;
    this.hooks.log(this, line);
  }
}
