// Test helper: runs `agentjet worker` (the real engine and built-in model) as a child process on a
// free port in a temporary run dir, with fixed tokens; the SDK tests talk to it only over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
export const TOKENS = { admin: 'sdk-test-admin-0123456789', join: 'sdk-test-join-0123456789' };

export interface WorkerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export async function startWorkerProcess(args: string[] = [], timeoutMs = 60_000): Promise<WorkerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'aj-sdk-'));
  const child = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'bin/agentjet.mjs'),
      'worker',
      '--port',
      '0',
      '--run-dir',
      join(dir, 'run'),
      '--threads',
      '1',
      '--seed',
      '1',
      ...args,
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, AGENTJET_ADMIN_TOKEN: TOKENS.admin, AGENTJET_JOIN_TOKEN: TOKENS.join },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker did not start within ${timeoutMs} ms:\n${out.slice(-2000)}`)),
      timeoutMs,
    );
    child.stdout!.on('data', () => {
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${out.slice(-2000)}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, child, output: () => out, stop };
}

/** An admin request to the worker (pause/start, episode lookups) — the SDK itself uses only the join token. */
export async function admin(url: string, method: string, path: string): Promise<unknown> {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${TOKENS.admin}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Runs a command from the repository root to its end (SIGKILL after `timeoutMs`), with its stdout and stderr together. */
export function runProcess(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}
