// Issue #19 §1 over real stdio frames, with a fake engine program (testing/fake-engine-program.ts)
// in place of the Python engine: an answer the worker cannot attribute (an error without a request
// id) fails every call in flight and the supervisor restarts the engine; a call the engine never
// answers fails at its deadline, a generation is cancelled, and the engine serves on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwarmError } from '../../../src/shared/swarm-error';
import { fakeEnginePython, LOSE_THIS_FRAME } from '../testing/fake-engine-program';
import { EngineHost, processEngineFactory } from './engine-host';
import { EngineDeadlineError, EngineExitedError } from './engine-channel';
import { EngineProcess } from './engine-process';

const user = (content: string) => ({ messages: [{ role: 'user' as const, content }] });
const generate = { requests: [{ promptIds: [1, 2], maxTokens: 8, temperature: 1 }] };

describe('engine client faults (fake engine program over stdio)', () => {
  let dir: string;
  let python: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'aj-fake-engine-'));
    python = fakeEnginePython(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('treats an error without a request id as a protocol failure: every call fails, the process is killed', async () => {
    const logs: string[] = [];
    let exit = '';
    const engine = await EngineProcess.start({ python, onLog: (l) => logs.push(l), onExit: (r) => (exit = r) });
    expect((await engine.call('render', user('hi'))).text).toBe('fake');
    const waiting = engine.call('generate', generate).catch((e: unknown) => e);
    const lost = engine.call('render', user(LOSE_THIS_FRAME)).catch((e: unknown) => e);
    for (const err of [await lost, await waiting]) {
      expect(err).toBeInstanceOf(EngineExitedError);
      expect((err as Error).message).toMatch(
        /engine protocol failure: the engine answered an error without a request id/,
      );
    }
    expect(exit).toMatch(/protocol failure/);
    expect(engine.alive).toBe(false);
    expect(logs.some((l) => l.includes('restarting the engine'))).toBe(true);
    await expect(engine.call('info', {})).rejects.toBeInstanceOf(EngineExitedError);
    await engine.dispose();
  });

  it('restarts the engine after a protocol failure, like after a crash, and serves again', async () => {
    const events: string[] = [];
    const host = new EngineHost({
      factory: processEngineFactory({ python }),
      load: { path: '/fake/program' },
      checkpoint: () => null,
      onCrash: (r) => events.push(`crash: ${r}`),
      onRecovered: () => events.push('recovered'),
      backoffMs: 10,
    });
    await host.start();
    const firstPid = host.pid;
    const err = await host.call('render', user(LOSE_THIS_FRAME)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwarmError);
    expect(err).toMatchObject({ status: 503, code: 'engine_unavailable' });
    const t0 = Date.now();
    while (host.status !== 'ready' && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
    expect(host.status).toBe('ready');
    expect(host.pid).not.toBe(firstPid);
    expect(events[0]).toMatch(/^crash: engine protocol failure/);
    expect(events.at(-1)).toBe('recovered');
    expect((await host.call('render', user('hi'))).text).toBe('fake');
    await host.dispose();
  });

  it('fails a call the engine never answers at its deadline, cancels the generation, and serves on', async () => {
    const logs: string[] = [];
    const engine = await EngineProcess.start({ python, onLog: (l) => logs.push(l) });
    const t0 = performance.now();
    const err = await engine.call('generate', generate, { deadlineMs: 300 }).catch((e: unknown) => e);
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(EngineDeadlineError);
    expect((err as Error).message).toBe('the engine did not answer generate within 0.30 s');
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(engine.alive).toBe(true);
    expect((await engine.call('render', user('after'))).text).toBe('fake');
    const t1 = Date.now();
    while (!logs.some((l) => /fake engine: cancel \d+/.test(l)) && Date.now() - t1 < 10_000)
      await new Promise((r) => setTimeout(r, 20));
    expect(logs.some((l) => /fake engine: cancel \d+/.test(l))).toBe(true);
    await engine.dispose();
  });

  it('gives every host call its method deadline: past it a 504, and the engine stays up', async () => {
    const host = new EngineHost({
      factory: processEngineFactory({ python }),
      load: { path: '/fake/program' },
      checkpoint: () => null,
      deadlines: { generateMs: 200, generatePerTokenMs: 10 },
    });
    await host.start();
    const err = await host.call('generate', generate).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 504, code: 'engine_timeout' });
    expect((err as Error).message).toMatch(/did not answer generate within 0\.28 s/);
    expect(host.status).toBe('ready');
    expect((await host.call('render', user('still here'))).text).toBe('fake');
    await host.dispose();
  });
});
