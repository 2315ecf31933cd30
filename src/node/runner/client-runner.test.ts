// ClientRunner with real processes: environment and identity, log capture, crash restarts with
// backoff, SIGTERM grace then SIGKILL, and dispose() leaving nothing running.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientRunner, type ClientRunnerOptions, type RunnerEvents } from './client-runner';
import {
  isAlive,
  REPORT_TS,
  startCollector,
  tempProject,
  waitFor,
  type Collector,
  type TempProject,
} from './test-support';

/** A test client: runs `setup`, reports its identity, runs `body`, then idles until stopped. */
function clientSource(body = '', idle = true, setup = ''): string {
  return [
    `import { report } from './report';`,
    setup,
    `console.log('hello from ' + process.env.AGENTJET_CLIENT_ID);`,
    `console.error('a line on stderr');`,
    `await report('started', { joinToken: process.env.AGENTJET_JOIN_TOKEN, serverUrl: process.env.AGENTJET_SERVER_URL,`,
    `  index: process.env.AGENTJET_CLIENT_INDEX, userEnv: process.env.USER_FLAG, adminToken: process.env.AGENTJET_ADMIN_TOKEN ?? null });`,
    body,
    idle ? `setInterval(() => undefined, 1000);` : '',
  ].join('\n');
}

let project: TempProject;
let collector: Collector;
let runner: ClientRunner | null = null;

beforeEach(async () => {
  project = await tempProject({ 'report.ts': REPORT_TS });
  collector = await startCollector();
});

afterEach(async () => {
  await runner?.dispose();
  runner = null;
  await collector.close();
  await project.cleanup();
});

function makeRunner(extra: Partial<ClientRunnerOptions> = {}): ClientRunner {
  runner = new ClientRunner({
    name: 'calc',
    serverUrl: collector.url,
    joinToken: 'join-secret',
    cacheDir: join(project.dir, '.cache'),
    ...extra,
  });
  return runner;
}

const started = (version?: string) =>
  collector.reports.filter((r) => r.kind === 'started' && (version === undefined || r.codeVersion === version));

describe('ClientRunner', () => {
  it('starts N clients with their identity and the user env, capturing their logs', async () => {
    const entry = await project.write('client.ts', clientSource());
    process.env.AGENTJET_ADMIN_TOKEN = 'admin-secret-must-not-leak';
    const r = makeRunner({ count: 3, env: { USER_FLAG: 'on' } });
    const logs: RunnerEvents['client:log'][] = [];
    r.on('client:log', (e) => logs.push(e));
    const result = await r.start(entry).finally(() => delete process.env.AGENTJET_ADMIN_TOKEN);
    if (!result.ok) throw new Error('compile failed');
    const reports = await waitFor('3 clients', () => started().length === 3 && started());
    expect(reports.map((x) => x.clientId).sort()).toEqual(['calc-0', 'calc-1', 'calc-2']);
    for (const rep of reports) {
      expect(rep).toMatchObject({
        codeVersion: result.codeVersion,
        joinToken: 'join-secret',
        serverUrl: collector.url,
        userEnv: 'on',
        adminToken: null,
      });
      expect(rep.index).toBe(rep.clientId.slice('calc-'.length));
    }
    const status = r.status();
    expect(status.codeVersion).toBe(result.codeVersion);
    expect(status.clients.map((c) => [c.clientId, c.state, c.codeVersion, c.restarts])).toEqual([
      ['calc-0', 'running', result.codeVersion, 0],
      ['calc-1', 'running', result.codeVersion, 0],
      ['calc-2', 'running', result.codeVersion, 0],
    ]);
    expect(status.clients.map((c) => c.pid).sort()).toEqual(reports.map((x) => x.pid).sort());
    await waitFor('stderr captured', () => r.logs('calc-1').some((l) => l.stream === 'stderr'));
    expect(
      r
        .logs('calc-1')
        .filter((l) => l.stream !== 'system')
        .map((l) => [l.stream, l.line]),
    ).toEqual([
      ['stdout', 'hello from calc-1'],
      ['stderr', 'a line on stderr'],
    ]);
    expect(
      logs.some(
        (l) => l.clientId === 'calc-2' && l.line === 'hello from calc-2' && l.codeVersion === result.codeVersion,
      ),
    ).toBe(true);
    expect(r.status().clients.every((c) => c.lastLogAt !== null)).toBe(true);
  });

  it('restarts, stops and starts one client on request, leaving the others running', async () => {
    const entry = await project.write('client.ts', clientSource());
    const r = makeRunner({ count: 2 });
    const result = await r.start(entry);
    if (!result.ok) throw new Error('compile failed');
    await waitFor('2 clients', () => started().length === 2);
    const pidOf = (id: string): number | null => r.status().clients.find((c) => c.clientId === id)?.pid ?? null;
    const [p0, p1] = [pidOf('calc-0')!, pidOf('calc-1')!];
    await r.restartClient('calc-0');
    await waitFor('calc-0 restarted', () => started().length === 3);
    expect(isAlive(p0)).toBe(false);
    expect(pidOf('calc-0')).not.toBe(p0);
    expect(pidOf('calc-1')).toBe(p1);
    await r.stopClient('calc-1');
    expect(isAlive(p1)).toBe(false);
    expect(r.status().clients.find((c) => c.clientId === 'calc-1')?.state).toBe('exited');
    await r.startClient('calc-1');
    await waitFor('calc-1 back', () => started().length === 4);
    expect(r.status().clients.map((c) => c.state)).toEqual(['running', 'running']);
    await expect(r.restartClient('calc-9')).rejects.toThrow(/no client calc-9/);
  });

  it('restarts a crashing client with exponential backoff, capped', async () => {
    const entry = await project.write('client.ts', clientSource('process.exit(3);', false));
    const r = makeRunner({ count: 1, backoff: { initialMs: 100, factor: 2, maxMs: 400, resetAfterMs: 60_000 } });
    const exits: RunnerEvents['client:exited'][] = [];
    r.on('client:exited', (e) => exits.push(e));
    await r.start(entry);
    await waitFor('5 runs', () => started().length >= 5, 8000);
    const times = started().map((x) => x.t ?? 0);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(exits.slice(0, 4).map((e) => [e.code, e.restartInMs])).toEqual([
      [3, 100],
      [3, 200],
      [3, 400],
      [3, 400],
    ]);
    // Each gap is at least its backoff delay; the cap keeps the fourth near 400 ms plus start-up.
    [100, 200, 400, 400].forEach((delay, i) => expect(gaps[i]).toBeGreaterThanOrEqual(delay));
    expect(gaps[3]).toBeLessThan(2000);
    expect(r.status().clients[0]!.restarts).toBeGreaterThanOrEqual(4);
    console.log(`[runner test] crash restart gaps (ms): ${gaps.slice(0, 4).join(', ')}`);
  });

  it('does not restart a client that exits cleanly (restart: on-failure)', async () => {
    const entry = await project.write('client.ts', clientSource('process.exit(0);', false));
    const r = makeRunner({ backoff: { initialMs: 50 } });
    await r.start(entry);
    await waitFor('exit', () => r.status().clients[0]!.state === 'exited' && true);
    await new Promise((res) => setTimeout(res, 200));
    expect(started()).toHaveLength(1);
    expect(r.status().clients[0]).toMatchObject({
      state: 'exited',
      pid: null,
      restarts: 0,
      lastExit: { code: 0, signal: null },
    });
  });

  it('gives a client that traps SIGTERM its grace period, and SIGKILLs one that ignores it', async () => {
    const graceful = await project.write(
      'graceful.ts',
      clientSource(
        '',
        true,
        `process.on('SIGTERM', () => setTimeout(() => void report('aborted').then(() => process.exit(0)), 150));`,
      ),
    );
    const r = makeRunner({ count: 2, stopGraceMs: 3000 });
    await r.start(graceful);
    await waitFor('2 clients', () => started().length === 2);
    const t0 = Date.now();
    await r.stop();
    expect(
      collector.reports
        .filter((x) => x.kind === 'aborted')
        .map((x) => x.clientId)
        .sort(),
    ).toEqual(['calc-0', 'calc-1']);
    expect(Date.now() - t0).toBeLessThan(3000); // they exited by themselves, well before SIGKILL
    expect(r.status().clients.map((c) => [c.state, c.lastExit?.code])).toEqual([
      ['exited', 0],
      ['exited', 0],
    ]);

    const stubborn = await project.write(
      'stubborn.ts',
      clientSource('', true, `process.on('SIGTERM', () => console.log('ignoring SIGTERM'));`),
    );
    const r2 = makeRunner({ stopGraceMs: 300 });
    await r.dispose();
    await r2.start(stubborn);
    const pid = (
      await waitFor('stubborn client', () => started().find((x) => x.codeVersion !== started()[0]!.codeVersion))
    ).pid;
    const t1 = Date.now();
    await r2.stop();
    expect(Date.now() - t1).toBeGreaterThanOrEqual(300);
    expect(isAlive(pid)).toBe(false);
    expect(r2.status().clients[0]!.lastExit?.signal).toBe('SIGKILL');
    expect(r2.logs('calc-0').map((l) => l.line)).toContain('ignoring SIGTERM');
  });

  it('dispose() stops clients, their own child processes and pending restarts, leaving nothing running', async () => {
    const entry = await project.write(
      'client.ts',
      [
        `import { spawn } from 'node:child_process';`,
        `import { report } from './report';`,
        `const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });`,
        `await report('started', { childPid: child.pid });`,
        `setInterval(() => undefined, 1000);`,
      ].join('\n'),
    );
    const crasher = await project.write('crasher.ts', clientSource('process.exit(1);', false));
    const r = makeRunner({ count: 3 });
    const crashing = new ClientRunner({
      name: 'crash',
      serverUrl: collector.url,
      joinToken: 'j',
      cacheDir: join(project.dir, '.cache'),
      backoff: { initialMs: 300 },
    });
    await r.start(entry);
    await crashing.start(crasher);
    const withChild = () => started().filter((x) => x.childPid !== undefined);
    const reports = await waitFor('3 clients', () => withChild().length === 3 && withChild());
    await waitFor('crasher in backoff', () => crashing.status().clients[0]!.state === 'backoff');
    const pids = reports.flatMap((x) => [x.pid, x.childPid ?? -1]);
    expect(pids.every(isAlive)).toBe(true);
    await Promise.all([r.dispose(), crashing.dispose()]);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(r.status().clients.every((c) => c.state === 'exited' && c.pid === null)).toBe(true);
    await new Promise((res) => setTimeout(res, 450)); // past the crasher's backoff: it must not come back
    expect(started().filter((x) => x.clientId === 'crash-0')).toHaveLength(1);
    await expect(r.swap(entry)).rejects.toThrow(/disposed/);
  });
});
