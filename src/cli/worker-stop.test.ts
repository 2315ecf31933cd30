// Stopping the worker the ways it is documented to run, with the real engine (built-in model):
// the service entry script (`exec node bin/agentjet.mjs worker`) gets SIGTERM → checkpoint, exit
// 0, engine gone; a worker SIGKILLed (kill -9) while its engine reads nothing does not leave the
// engine behind, and after --resume its answered ends are pooled and no counter went backwards; under `npx agentjet worker` a SIGTERM to npx (which npm does not pass on) still ends in
// a checkpointed shutdown, because the worker notices it was orphaned.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../gpu-worker/src/resources';
import { http, tempDir, TEST_TOKENS } from '../../gpu-worker/src/testing/workers';
import type { ClaimResponse, Status } from '../shared/swarm-protocol';
import { processAlive } from '../node/runner/process-group';

const linux = process.platform === 'linux';
const spawned: ChildProcess[] = [];
const pids = new Set<number>();
const dirs: string[] = [];
afterAll(() => {
  for (const pid of pids) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Pids of the live children of `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && processAlive(Number(name))) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Launched {
  child: ChildProcess;
  url: string;
  /** The worker process (not npx's) and its engine. */
  workerPid: number;
  enginePid: number;
  output: () => string;
}

/** Spawns `cmd args` (a documented way to run the worker) and waits until it serves. */
async function launch(cmd: string, args: string[], runDir: string, env: NodeJS.ProcessEnv = {}): Promise<Launched> {
  const child = spawn(cmd, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, AGENTJET_ADMIN_TOKEN: TEST_TOKENS.admin, AGENTJET_JOIN_TOKEN: TEST_TOKENS.join, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await waitFor(
    `the worker to listen:\n${out}`,
    () => /listening on (http:\/\/\S+)/.exec(out)?.[1],
    120_000,
  );
  const workerPid = (JSON.parse(readFileSync(join(runDir, 'worker.json'), 'utf8')) as { pid: number }).pid;
  pids.add(workerPid);
  const enginePid = await waitFor('the engine process', () => childrenOf(workerPid)[0]);
  pids.add(enginePid);
  return { child, url, workerPid, enginePid, output: () => out };
}

const status = async (url: string): Promise<Status> =>
  (await http<Status>(url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body;

async function claimOne(url: string, taskId: string): Promise<ClaimResponse> {
  const c = await http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
    token: TEST_TOKENS.join,
    body: { clientId: 'stop-test', taskId },
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  return c.body;
}

async function playAndEnd(url: string, taskId: string): Promise<void> {
  const c = await claimOne(url, taskId);
  expect(
    (
      await http(url, 'POST', '/v1/chat/completions', {
        token: c.apiKey,
        body: { messages: [{ role: 'user', content: 'hi' }] },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await http(url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
        token: TEST_TOKENS.join,
        body: { taskId, reward: 1 },
      })
    ).status,
  ).toBe(200);
}

const workerArgs = (runDir: string): string[] => [
  '--port',
  '0',
  '--run-dir',
  runDir,
  '--threads',
  '1',
  '--max-tokens',
  '8',
  '--checkpoint-every',
  '0',
];

function newRunDir(): string {
  const d = tempDir('aj-stop-');
  dirs.push(d);
  return join(d, 'run');
}

describe.skipIf(!linux)('stopping the worker as documented (real engine)', () => {
  it('the service entry script: kill -9 loses no answered end, sets no counter back and leaves no engine, even one not reading; a restart resumes and SIGTERM checkpoints', async () => {
    const runDir = newRunDir();
    const entry = join(REPO_ROOT, 'deploy', 'worker-entry.sh');
    const env = { AGENTJET_RUN_DIR: runDir };
    const first = await launch(
      entry,
      [
        '--port',
        '0',
        '--threads',
        '1',
        '--checkpoint-every',
        '0',
        '--strategy',
        'C1',
        '--batch',
        '100',
        '--max-tokens',
        '8',
      ],
      runDir,
      env,
    );
    expect(first.workerPid).toBe(first.child.pid); // exec: signals go to Node itself
    for (const task of ['a', 'b']) await playAndEnd(first.url, task);
    await claimOne(first.url, 'left-open');
    const before = (await status(first.url)).counters;
    expect(before).toMatchObject({ claimed: 3, ended: 2, calls: 2 });
    // An engine that reads nothing (stopped: as stuck in a long render or training step) would
    // never see its stdin close; the kernel's parent-death signal ends it all the same.
    process.kill(first.enginePid, 'SIGSTOP');
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await waitFor('the engine to exit after its worker was SIGKILLed', () => !processAlive(first.enginePid), 10_000);
    console.log(`[stop test] a stopped engine exited ${Date.now() - killedAt} ms after its worker was SIGKILLed`);

    const second = await launch(entry, ['--port', '0'], runDir, env);
    expect(second.output()).toMatch(/resumed/);
    // kill -9 lost nothing: the answered ends are pooled, and no counter went backwards.
    const after = await status(second.url);
    expect(after.pool.episodes).toBe(2);
    for (const k of Object.keys(before) as (keyof typeof before)[])
      expect(after.counters[k], k).toBeGreaterThanOrEqual(before[k]);
    const exited = new Promise<number | null>((r) => second.child.once('exit', (code) => r(code)));
    second.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(runDir, 'checkpoints', 'step-000000'))).toBe(true);
    expect(processAlive(second.enginePid)).toBe(false);
  }, 240_000);

  it('`npx agentjet worker`: SIGTERM to npx still checkpoints, because the worker notices it was orphaned', async () => {
    const runDir = newRunDir();
    const w = await launch('npx', ['agentjet', 'worker', ...workerArgs(runDir)], runDir);
    expect(w.workerPid).not.toBe(w.child.pid);
    w.child.kill('SIGTERM'); // npm exits without passing it on
    await waitFor('the orphaned worker to exit', () => !processAlive(w.workerPid), 120_000);
    expect(w.output()).toMatch(/parent process \(\d+\) exited: shutting down/);
    expect(existsSync(join(runDir, 'checkpoints', 'step-000000'))).toBe(true);
    await waitFor('the engine to exit', () => !processAlive(w.enginePid), 10_000);
  }, 240_000);
});
