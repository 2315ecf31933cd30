// Test helpers: start a worker (fake engine, or the real engine with the built-in model) on a free port in a
// temporary run dir, and a small fetch wrapper that sends a bearer credential and returns status, headers and JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkerConfigInput } from '../worker-config';
import { startWorker, type StartOptions, type Worker } from '../worker';
import { BUILTIN_MODEL_DIR } from '../resources';
import { fakeEngineFactory, type FakeEngine, type FakeEngineOptions } from './fake-engine';

export const TEST_TOKENS = { admin: 'test-admin-token-0123456789', join: 'test-join-token-0123456789' };

export interface TestWorker {
  worker: Worker;
  engines: FakeEngine[];
  dir: string;
  logs: string[];
  stop(): Promise<void>;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startFakeWorker(
  config: Partial<WorkerConfigInput> = {},
  opts: { engine?: FakeEngineOptions; start?: StartOptions; dir?: string } = {},
): Promise<TestWorker> {
  const dir = opts.dir ?? tempDir('aj-worker-');
  const { factory, engines } = fakeEngineFactory(opts.engine);
  const logs: string[] = [];
  const worker = await startWorker(
    { model: '/fake/model', modelName: 'fake-model', port: 0, runDir: join(dir, 'run'), ...config },
    { engineFactory: factory, tokens: TEST_TOKENS, log: (l) => logs.push(l), sweepIntervalMs: 50, ...opts.start },
  );
  return {
    worker,
    engines,
    dir,
    logs,
    stop: async () => {
      await worker.dispose();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A worker on the real engine and the built-in model (one thread, seed 1) in `dir`'s `run`, tested through the
 * test tokens; `config` adds to or overrides that.
 */
export function startBuiltinWorker(
  dir: string,
  config: Partial<WorkerConfigInput>,
  start: Partial<StartOptions> = {},
): Promise<Worker> {
  return startWorker(
    { model: BUILTIN_MODEL_DIR, port: 0, runDir: join(dir, 'run'), threads: 1, seed: 1, ...config },
    { tokens: TEST_TOKENS, log: () => undefined, ...start },
  );
}

export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** One request; `body` undefined sends none; a string or Buffer is sent raw as JSON content. */
export async function http<T = Record<string, unknown>>(
  url: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers['authorization'] = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
  }
  const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}
