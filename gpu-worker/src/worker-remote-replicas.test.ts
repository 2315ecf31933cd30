// Integration (issue #21 §2: a second box adds rollout replicas): a real worker with the built-in model
// and --remote-replicas on loopback, and `agentjet replica` as a separate process — the "second host",
// with its own engine process — attached over a WebSocket and synced over gloo through the trainer's
// store. Calls are routed to the remote replica, every update's weights reach it; killing the replica
// host mid-run leaves training going (the trainer's engine serves while no replica is alive) and the
// status shows the replica down; started again, it rejoins under its name at the current weights.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FILES_HEADER } from '../../src/shared/replica-attach';
import type { Status } from '../../src/shared/swarm-protocol';
import { workerRoutes } from '../../src/shared/worker-routes';
import { formatModelFiles, modelFiles } from './engine/replicas/model-files';
import { BUILTIN_MODEL_DIR, REPO_ROOT } from './resources';
import { playGroup as play, swarmStatus as status, until } from './testing/swarm-play';
import { startBuiltinWorker, tempDir, TEST_TOKENS } from './testing/workers';
import type { Worker } from './worker';

const playGroup = (url: string, taskId: string): Promise<void> =>
  play(url, taskId, { clientId: 'remote', together: true, maxRetries: 5 });

const remoteReplica = (s: Status) => s.serving?.rollout?.replicas.find((r) => r.host === 'hostb/0');

/** `agentjet replica` as its own process, the way a second host runs it. */
function replicaHost(url: string, logs: string[]): ChildProcess {
  const child = spawn(
    process.execPath,
    [resolve(REPO_ROOT, 'bin/agentjet.mjs'), 'replica', '--worker', url, '--name', 'hostb', '--replica-threads', '1'],
    { env: { ...process.env, AGENTJET_ADMIN_TOKEN: TEST_TOKENS.admin }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (d: Buffer) => logs.push(`replica host: ${d.toString().trim()}`));
  child.stderr!.on('data', (d: Buffer) => logs.push(`replica host: ${d.toString().trim()}`));
  return child;
}

/** An attach by hand: the HTTP status it is refused with (0: it was taken). */
function attachStatus(url: string, headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${workerRoutes.replicaAttach.path}?name=forger/0`, {
    headers,
  });
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? -1);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(0);
      ws.terminate();
    });
    ws.on('error', () => resolve(-1));
  });
}

const exited = (child: ChildProcess): Promise<void> =>
  new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));

describe('a worker with rollout replicas on a second host (loopback)', () => {
  let w: Worker;
  let dir: string;
  const children: ChildProcess[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir('aj-remote-');
    w = await startBuiltinWorker(
      dir,
      {
        remoteReplicas: true,
        syncTimeoutS: 60,
        training: { strategy: 'C2', batch: 1, groupSize: 2, lr: 1e-3, checkpointEvery: 0, defaultMaxTokens: 12 },
      },
      { log: (l) => logs.push(l), sweepIntervalMs: 50 },
    );
  }, 240_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an attach with a forged key or another model', async () => {
    const files = formatModelFiles(modelFiles(BUILTIN_MODEL_DIR));
    const forged = { authorization: 'Bearer forged-admin-token-0123456789', [MODEL_FILES_HEADER]: files };
    expect(await attachStatus(w.url, forged)).toBe(401);
    const other = {
      authorization: `Bearer ${TEST_TOKENS.admin}`,
      [MODEL_FILES_HEADER]: 'config.json=0123456789abcdef',
    };
    expect(await attachStatus(w.url, other)).toBe(409);
    expect((await status(w.url)).serving?.rollout?.replicas).toEqual([]);
  });

  it('routes calls to the remote replica, syncs it, survives its host dying and takes it back', async () => {
    const first = replicaHost(w.url, logs);
    children.push(first);
    const s0 = await until(
      () => status(w.url),
      (s) => remoteReplica(s)?.healthy === true,
      180_000,
    );
    expect(remoteReplica(s0)).toMatchObject({ index: 0, state: 'ready', weightVersion: 0, pid: null, calls: 0 });

    await playGroup(w.url, 'a'); // both calls on the remote replica: the only one alive
    const s1 = await until(
      () => status(w.url),
      (s) => s.step === 1 && remoteReplica(s)?.weightVersion === 1,
    );
    expect(remoteReplica(s1)?.calls).toBe(2);
    expect(s1.lastStep?.health?.stalenessMax).toBe(0);
    expect(s1.serving?.rollout?.syncFailures).toBe(0);

    first.kill('SIGKILL'); // the second host dies mid-run
    await exited(first);
    const down = await until(
      () => status(w.url),
      (s) => remoteReplica(s)?.healthy === false,
    );
    expect(remoteReplica(down)?.state).toBe('restarting');
    await playGroup(w.url, 'bb'); // answered by the trainer's own engine meanwhile
    await until(
      () => status(w.url),
      (s) => s.step === 2,
    );

    children.push(replicaHost(w.url, logs));
    const back = await until(
      () => status(w.url),
      (s) => remoteReplica(s)?.healthy === true,
      180_000,
    );
    expect(remoteReplica(back)).toMatchObject({ index: 0, restarts: 1, weightVersion: 2 });
    expect(back.serving?.rollout?.replicas).toHaveLength(1);
    expect(logs.join('\n')).not.toMatch(/weight sync: the trainer's push failed/);
  }, 420_000);
});
