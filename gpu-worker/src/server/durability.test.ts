// The pool journal under I/O failure, through a worker (fake engine) whose journal writes go
// through a fake file system: a failed `end` is a 503 with Retry-After, nothing half-admitted
// trains, `/health` and the events stream name the cause, a failed compaction leaves the worker
// ending episodes on the old journal; and counters never go backwards across a crash + resume.
import { readdirSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SwarmEvent } from '../../../src/shared/swarm-events';
import type { ClaimResponse, Health, Status } from '../../../src/shared/swarm-protocol';
import { FakeFaultyFs } from '../testing/fake-faulty-fs';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, tempDir, TEST_TOKENS, type TestWorker } from '../testing/workers';

const running: TestWorker[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const status = async (t: TestWorker): Promise<Status> =>
  (await http<Status>(t.worker.url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body;

async function played(t: TestWorker, taskId: string): Promise<ClaimResponse> {
  const c = (
    await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
      token: TEST_TOKENS.join,
      body: { clientId: 'dur', taskId },
    })
  ).body;
  const r = await http(t.worker.url, 'POST', '/v1/chat/completions', {
    token: c.apiKey,
    body: { messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(r.status).toBe(200);
  return c;
}
const end = (t: TestWorker, c: ClaimResponse, taskId: string, reward = 1) =>
  http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
    token: TEST_TOKENS.join,
    body: { taskId, reward },
  });

function collectEvents(t: TestWorker): { events: SwarmEvent[]; close: () => void } {
  const events: SwarmEvent[] = [];
  const ws = new WebSocket(`${t.worker.url.replace('http', 'ws')}/swarm/v1/events`, {
    headers: { authorization: `Bearer ${TEST_TOKENS.admin}` },
  });
  ws.on('message', (d: Buffer) => events.push(JSON.parse(d.toString()) as SwarmEvent));
  return { events, close: () => ws.close() };
}

describe('pool journal under I/O failure', () => {
  it('answers 503 with Retry-After, pools nothing, reports the cause in /health and events, and recovers', async () => {
    const fs = new FakeFaultyFs();
    const t = await startFakeWorker(
      { training: { strategy: 'C1', batch: 2, algo: 'reinforce', checkpointEvery: 0 } },
      { engine: { reply: scriptedReply }, start: { journalFs: fs } },
    );
    running.push(t);
    const feed = collectEvents(t);
    await until(
      async () => feed.events.length,
      (n) => n > 0,
    );
    const a = await played(t, 'a');
    expect((await end(t, a, 'a', 1)).status).toBe(200);
    const b = await played(t, 'b');
    fs.fail('append', 'ENOSPC');
    const failed = await end(t, b, 'b', 0);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('5');
    expect(failed.body).toMatchObject({
      error: { type: 'service_unavailable', code: 'journal_unavailable', retry_after_s: 5 },
    });
    // Not half-admitted: nothing trains from it, the pool holds only `a`.
    const s = await status(t);
    expect(s).toMatchObject({ step: 0, pool: { episodes: 1 }, counters: { ended: 1 } });
    const health = (await http<Health>(t.worker.url, 'GET', '/health')).body;
    expect(health.ok).toBe(false);
    expect(health.journal?.lastError).toMatch(/ENOSPC/);
    const logged = await until(
      async () => feed.events.filter((e) => e.type === 'log' && e.source === 'pool'),
      (l) => l.length > 0,
    );
    expect(logged[0]).toMatchObject({ level: 'error' });
    // The client retries (as the SDKs do on a 503): accepted, trained, healthy again.
    expect((await end(t, b, 'b', 0)).status).toBe(200);
    await until(
      () => status(t),
      (x) => x.step === 1 && x.pool.episodes === 0,
    );
    expect((await http<Health>(t.worker.url, 'GET', '/health')).body).toMatchObject({
      ok: true,
      journal: { ok: true },
    });
    feed.close();
  });

  it('keeps ending episodes after a failed compaction, with no temporary file left', async () => {
    const fs = new FakeFaultyFs();
    const t = await startFakeWorker(
      { training: { strategy: 'C1', batch: 100 } },
      { engine: { reply: scriptedReply }, start: { journalFs: fs } },
    );
    running.push(t);
    expect((await end(t, await played(t, 'a'), 'a')).status).toBe(200);
    fs.fail('rename', 'EIO');
    const cp = await http(t.worker.url, 'POST', '/swarm/v1/control/checkpoint', { token: TEST_TOKENS.admin });
    expect(cp.status).toBe(503);
    expect(cp.body).toMatchObject({ error: { code: 'journal_unavailable' } });
    expect(readdirSync(t.worker.files.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    for (const task of ['b', 'c']) expect((await end(t, await played(t, task), task)).status).toBe(200);
    expect((await status(t)).pool.episodes).toBe(3);
    expect(
      (await http(t.worker.url, 'POST', '/swarm/v1/control/checkpoint', { token: TEST_TOKENS.admin })).status,
    ).toBe(200);
  });
});

describe('counters across a crash', () => {
  it('never go backwards after a crash without checkpoint and --resume', async () => {
    const dir = tempDir('aj-counters-');
    dirs.push(dir);
    const t = await startFakeWorker(
      { training: { strategy: 'C1', batch: 100, checkpointEvery: 0 } },
      { engine: { reply: scriptedReply }, dir },
    );
    for (const task of ['a', 'b', 'c']) await end(t, await played(t, task), task);
    await played(t, 'open'); // claimed, one call, never ended
    const ab = await played(t, 'd');
    await http(t.worker.url, 'POST', `/swarm/v1/episodes/${ab.episodeId}/abort`, { token: TEST_TOKENS.join, body: {} });
    const before = (await status(t)).counters;
    expect(before).toMatchObject({ claimed: 5, ended: 3, aborted: 1, calls: 5 });
    await t.worker.dispose(); // as after kill -9: no shutdown checkpoint
    const r = await startFakeWorker({}, { engine: { reply: scriptedReply }, dir, start: { resume: true } });
    running.push(r);
    const after = (await status(r)).counters;
    for (const k of Object.keys(before) as (keyof typeof before)[])
      expect(after[k], k).toBeGreaterThanOrEqual(before[k]);
    expect(after).toMatchObject({ claimed: 5, ended: 3, aborted: 1, calls: 5 });
  });
});
