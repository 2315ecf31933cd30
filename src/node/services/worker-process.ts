// A local worker as a child process: `agentjet worker --config <file>` with the tokens in its
// environment, its output captured line by line, its URL read from the `worker.json` it writes once
// it serves, and a stop that sends SIGTERM (the worker checkpoints) and SIGKILL after a grace period.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { LOG_EVENTS_ONLY_ENV } from '../../shared/swarm-events';
import { WorkerFileSchema } from '../../shared/swarm-protocol';
import { PARENT_WATCHDOG } from '../runner/client-process';

export interface WorkerProcessOptions {
  /** Path of `bin/agentjet.mjs`. */
  bin: string;
  cwd: string;
  /** Flags after `worker` (`--config <file>`, `--resume <dir>`). */
  args: string[];
  /** The `worker.json` the worker writes into its run dir once it serves. */
  workerFile: string;
  tokens: { admin: string; join: string };
  /** Each output line (stdout/stderr). */
  onLine: (stream: 'stdout' | 'stderr', line: string) => void;
  /** The process exited (after start or during it). */
  onExit?: (code: number | null, signal: string | null) => void;
  startTimeoutMs?: number;
  /** The caller stores the worker's `log` events, so the worker leaves them off its stderr. */
  logEventsOnly?: boolean;
}

/** How often a starting worker's `worker.json` is looked for. */
const POLL_MS = 100;

/** The URL in `worker.json` when a worker started at or after `since` wrote it; null otherwise. */
export function servingUrl(file: string, since: number): string | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null; // not written yet
  }
  const parsed = WorkerFileSchema.safeParse(raw);
  return parsed.success && parsed.data.startedAt >= since ? parsed.data.url : null;
}

/** How to run a Node script from here: this Node, or Electron's binary acting as Node. */
export function nodeCommand(): { execPath: string; env: NodeJS.ProcessEnv } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (process.versions.electron) env['ELECTRON_RUN_AS_NODE'] = '1';
  return { execPath: process.execPath, env };
}

export class WorkerProcess {
  readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private exitInfo: { code: number | null; signal: string | null } | null = null;
  private tail: string[] = [];

  private constructor(private readonly o: WorkerProcessOptions) {
    const { execPath, env } = nodeCommand();
    // The watchdog (as for clients): if the workbench dies without stopping it, the worker gets
    // SIGTERM, so it checkpoints and exits instead of running on as an orphan.
    this.child = spawn(execPath, ['--import', PARENT_WATCHDOG, o.bin, 'worker', ...o.args], {
      cwd: o.cwd,
      env: {
        ...env,
        AGENTJET_ADMIN_TOKEN: o.tokens.admin,
        AGENTJET_JOIN_TOKEN: o.tokens.join,
        AGENTJET_PARENT_PID: String(process.pid),
        ...(o.logEventsOnly ? { [LOG_EVENTS_ONLY_ENV]: '1' } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        o.onExit?.(code, signal);
        resolve();
      });
      this.child.once('error', (err) => {
        o.onLine('stderr', `could not start the worker: ${err.message}`);
        if (this.child.pid === undefined) {
          this.exitInfo = { code: null, signal: null };
          o.onExit?.(null, null);
          resolve();
        }
      });
    });
  }

  /** Spawns the worker and resolves with its URL once it serves; rejects (and kills it) on failure. */
  static async start(
    o: WorkerProcessOptions,
    onLine?: (line: string) => void,
  ): Promise<{ proc: WorkerProcess; url: string }> {
    const spawnedAt = Date.now();
    const proc = new WorkerProcess(o);
    const url = await new Promise<string>((resolve, reject) => {
      const timeoutMs = o.startTimeoutMs ?? 120_000;
      const finish = (): void => {
        clearTimeout(timer);
        clearInterval(poll);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`the worker did not start within ${Math.round(timeoutMs / 1000)} s:\n${proc.recentOutput()}`));
      }, timeoutMs);
      const poll = setInterval(() => {
        const found = servingUrl(o.workerFile, spawnedAt);
        if (found === null) return;
        finish();
        resolve(found);
      }, POLL_MS);
      const watch = (stream: 'stdout' | 'stderr', line: string): void => {
        proc.tail.push(line);
        if (proc.tail.length > 30) proc.tail.shift();
        o.onLine(stream, line);
        onLine?.(line);
      };
      proc.capture(proc.child.stdout, 'stdout', watch);
      proc.capture(proc.child.stderr, 'stderr', watch);
      void proc.exited.then(() => {
        finish();
        const how = proc.exitInfo?.signal ? `signal ${proc.exitInfo.signal}` : `code ${proc.exitInfo?.code ?? '?'}`;
        reject(new Error(`the worker exited during start (${how}):\n${proc.recentOutput()}`));
      });
    }).catch(async (err: unknown) => {
      await proc.stop(2000);
      throw err;
    });
    return { proc, url };
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  recentOutput(): string {
    return this.tail.join('\n');
  }

  /** SIGTERM (the worker checkpoints and exits), SIGKILL after `graceMs`; resolves once it exited. */
  async stop(graceMs = 20_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private capture(
    stream: Readable | null,
    name: 'stdout' | 'stderr',
    onLine: (stream: 'stdout' | 'stderr', line: string) => void,
  ): void {
    if (!stream) return;
    const rl = createInterface({ input: stream, crlfDelay: Infinity });
    rl.on('line', (line) => onLine(name, line.length > 8192 ? `${line.slice(0, 8192)}… [truncated]` : line));
    stream.on('error', () => undefined);
  }
}
