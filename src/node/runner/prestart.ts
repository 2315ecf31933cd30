// Client processes started before their code arrives. When a hot-swap begins, the runner spawns one
// Node process per slot running PRESTART_MAIN, so Node's own start overlaps the compile and the old
// clients' shutdown instead of following them. It is spawned with the packages the previous bundle
// imported first (`speculative`) and loads them at once (and warms Node's fetch). Once compiled, the runner sends
// `prepare` (the client's code version, folder and bundle, and the rest of the packages the new bundle
// imports first) if the speculative ones are where the new bundle starts too, or else discards the
// process for a fresh one; once the slot's old process has exited it sends `go`, and the process drops
// its IPC channel and imports the bundle: from then on it is the client. Until `go` it runs no client
// code and calls no server, so a client id still never runs twice at a time, and a compile error
// discards it. See docs/clients.md (hot-swap timing).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const PRELOAD_ENV = 'AGENTJET_PRESTART_PRELOAD';

/**
 * The pre-started process's main module. Loading the bundle's leading package imports, in order,
 * evaluates exactly what the bundle's own first import statements would, before any of its code.
 */
export const PRESTART_MAIN = `
// AgentJet client runner: a client process started before its code (src/node/runner/prestart.ts).
import { pathToFileURL } from 'node:url';
const speculative = JSON.parse(process.env.${PRELOAD_ENV} ?? '[]');
delete process.env.${PRELOAD_ENV};
let onPrepare;
let onGo;
const prepared = new Promise((resolve) => (onPrepare = resolve));
const go = new Promise((resolve) => (onGo = resolve));
const onMessage = (m) => {
  if (m && m.type === 'prepare') onPrepare(m);
  else if (m && m.type === 'go') onGo();
};
const orphaned = () => process.exit(0);
process.on('message', onMessage);
process.on('disconnect', orphaned);
// A package that fails here fails the same way when the bundle imports it (ES modules keep the error).
const load = async (urls) => {
  for (const url of urls) await import(url).catch(() => undefined);
};
await load(speculative);
// Node's own fetch loads its implementation at the first call (tens of ms); a data: URL does no I/O.
if (typeof fetch === 'function') await fetch('data:,').catch(() => undefined);
const p = await prepared;
for (const [k, v] of Object.entries(p.env)) if (typeof v === 'string') process.env[k] = v;
if (p.cwd !== process.cwd()) process.chdir(p.cwd);
await load(p.preload);
await go;
process.off('message', onMessage);
process.off('disconnect', orphaned);
process.disconnect();
process.argv[1] = p.bundle;
await import(pathToFileURL(p.bundle).href);
`;

const MAIN_NAME = `prestart-${createHash('sha256').update(PRESTART_MAIN).digest('hex').slice(0, 12)}.mjs`;

/** Writes PRESTART_MAIN into the bundle cache once (named by its hash) and returns its path. */
export async function prestartMain(cacheDir: string): Promise<string> {
  const path = join(cacheDir, MAIN_NAME);
  const written = await stat(path).then(
    () => true,
    () => false,
  );
  if (written) return path;
  await mkdir(cacheDir, { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, PRESTART_MAIN);
  await rename(tmp, path);
  return path;
}

export interface PrepareMessage {
  /** Variables the client gets beyond those it was spawned with (its code version). */
  env: Record<string, string>;
  cwd: string;
  bundle: string;
  /** file: URLs of the packages the bundle imports first, in its order (CompileOk.preload). */
  preload: readonly string[];
}

/** Whether `xs` starts with `prefix`. */
export const startsWith = (xs: readonly string[], prefix: readonly string[]): boolean =>
  prefix.length <= xs.length && prefix.every((x, i) => xs[i] === x);

const isWindows = process.platform === 'win32';

export class PrestartedClient {
  private adopted = false;
  private exited = false;

  private constructor(
    readonly child: ChildProcess,
    private readonly speculative: readonly string[],
  ) {
    child.once('exit', () => (this.exited = true));
    child.on('error', () => (this.exited = true));
  }

  /**
   * Spawns `command args` (args ending with the PRESTART_MAIN file) the way a client slot spawns a
   * client; it loads the `speculative` packages (file: URLs) at once.
   */
  static spawn(
    command: string,
    args: readonly string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    speculative: readonly string[] = [],
  ): PrestartedClient {
    const child = spawn(command, [...args], {
      cwd,
      env: { ...env, AGENTJET_PARENT_PID: String(process.pid), [PRELOAD_ENV]: JSON.stringify(speculative) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: !isWindows,
    });
    return new PrestartedClient(child, [...speculative]);
  }

  get alive(): boolean {
    return !this.exited && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Hands it the compiled code; false (nothing sent) when the packages it loaded speculatively are not
   * the first ones the bundle imports, in order: then it must be discarded, as its start would differ.
   */
  prepare(m: PrepareMessage): boolean {
    if (!startsWith(m.preload, this.speculative)) return false;
    this.send({ type: 'prepare', ...m, preload: m.preload.slice(this.speculative.length) });
    return true;
  }

  /**
   * Sends `go` and hands the process over (its output, unread so far, and its exit are the caller's
   * from now on); null when it is gone, in which case it is discarded and the caller spawns afresh.
   */
  adopt(): ChildProcess | null {
    if (this.adopted) return null;
    if (!this.alive || !this.child.connected) {
      this.discard();
      return null;
    }
    this.adopted = true;
    this.send({ type: 'go' });
    return this.child;
  }

  /** Kills it (and anything it started) unless it was adopted; it ran no client code. */
  discard(): void {
    if (this.adopted) return;
    this.adopted = true;
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    if (!this.alive || this.child.pid === undefined) return;
    try {
      if (isWindows) this.child.kill('SIGKILL');
      else process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }

  private send(message: object): void {
    if (!this.child.connected) return;
    // A process that died meanwhile fails the send; its exit is handled by whoever owns it.
    this.child.send(message, (err) => void err);
  }
}
