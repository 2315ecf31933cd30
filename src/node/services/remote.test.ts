// The backend attached to a remote worker (an in-process worker with the fake engine): clear,
// distinct errors for a closed port, a server that is not a worker, a wrong token and a malformed
// URL; then a real attach — events become episodes, steps (rewardMin/Max) and evals in the Store,
// finished episodes' timelines and merged samples are fetched, the vocabulary is stored, and an
// unknown episode is not_found; and local clients from a user folder, edited in place.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scriptedReply } from '../../../gpu-worker/src/testing/scripted-replies';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../../../gpu-worker/src/testing/workers';
import type { WorkbenchEvent } from '../../shared/workbench-api';
import { WorkbenchError } from '../../shared/workbench-api';
import { createWorkbench, type Workbench } from '../workbench';

let dataDir: string;
let wb: Workbench;
const events: WorkbenchEvent[] = [];
const workers: TestWorker[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'aj-wb-remote-'));
  wb = await createWorkbench({ dataDir, log: () => undefined });
  wb.onEvent((e) => events.push(e));
});
afterEach(async () => {
  await wb.backend.disconnect({});
});
afterAll(async () => {
  await wb.dispose();
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(dataDir, { recursive: true, force: true });
});

async function errorOf(p: Promise<unknown>): Promise<WorkbenchError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof WorkbenchError)) throw new Error(`expected a WorkbenchError, got ${String(err)}`);
  return err;
}

function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

async function until<T>(what: string, fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`${what}: not within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Plays one train episode over HTTP with the join token: claim, one chat call, end with `reward`. */
async function play(url: string, taskId: string, reward: number, codeVersion: string): Promise<string> {
  const join = TEST_TOKENS.join;
  const claim = await until(
    'claim',
    () =>
      http<{ episodeId: string; baseUrl: string; apiKey: string }>(url, 'POST', '/swarm/v1/episodes', {
        token: join,
        body: { clientId: 'laptop', taskId, codeVersion },
      }),
    (r) => r.status !== 503,
  );
  expect(claim.status).toBe(201);
  const { episodeId, baseUrl, apiKey } = claim.body;
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(res.status).toBe(200);
  const end = await http(url, 'POST', `/swarm/v1/episodes/${episodeId}/end`, {
    token: join,
    body: { taskId, reward, success: reward > 0 },
  });
  expect(end.status).toBe(200);
  return episodeId;
}

describe('connectRemote', () => {
  it('names what is wrong: connection refused, not a worker, malformed URL, wrong token', async () => {
    const closed = await listen(() => undefined);
    await new Promise((r) => servers.pop()!.close(r));
    const refused = await errorOf(wb.backend.connectRemote({ url: closed, adminToken: 'x', clients: 0 }));
    expect(refused.code).toBe('unreachable');
    expect(refused.message).toBe(`cannot reach ${closed}: connection refused`);

    const other = await listen((_req, res) => res.end('<html>hello</html>'));
    const notWorker = await errorOf(wb.backend.connectRemote({ url: other, adminToken: 'x', clients: 0 }));
    expect(notWorker.code).toBe('not_a_worker');
    expect(notWorker.message).toMatch(/is not an AgentJet worker/);

    const bad = await errorOf(wb.backend.connectRemote({ url: 'ftp://example.com', adminToken: 'x', clients: 0 }));
    expect(bad.code).toBe('malformed_url');
    expect((await errorOf(wb.backend.connectRemote({ url: 'http://', adminToken: 'x', clients: 0 }))).code).toBe(
      'malformed_url',
    );

    const t = await startFakeWorker({ training: { strategy: 'C1', batch: 2 } }, { engine: { reply: scriptedReply } });
    workers.push(t);
    const wrong = await errorOf(
      wb.backend.connectRemote({ url: t.worker.url, adminToken: 'not-the-token', clients: 0 }),
    );
    expect(wrong.code).toBe('token_rejected');
    expect(wrong.message).toMatch(/admin token was rejected \(HTTP 401\)/);
    const joinOnly = await errorOf(
      wb.backend.connectRemote({ url: t.worker.url, adminToken: TEST_TOKENS.join, clients: 0 }),
    );
    expect(joinOnly.code).toBe('token_rejected');
    expect(await wb.backend.session({})).toBeNull();
    expect((await wb.backend.runs({})).runs).toEqual([]);
  });

  it('follows a worker: episodes, steps and evals land in the Store; timelines and the vocabulary are fetched', async () => {
    const t = await startFakeWorker({ training: { strategy: 'C1', batch: 2 } }, { engine: { reply: scriptedReply } });
    workers.push(t);
    const url = t.worker.url;
    // An episode before the attach is replayed from the worker's event log.
    const before = await play(url, 'task-a', 1, 'v-one');
    const session = await wb.backend.connectRemote({ url: `${url}/`, adminToken: TEST_TOKENS.admin, clients: 0 });
    expect(session).toMatchObject({
      mode: 'remote',
      workerUrl: url,
      model: 'fake-model',
      strategy: 'C1',
      activity: null,
      error: null,
    });
    const runId = session.runId;
    const after = await play(url, 'task-a', 0, 'v-two');
    const steps = await until(
      'a step',
      () => wb.backend.metrics({ runId }),
      (m) => m.steps.length === 1,
    );
    expect(steps.steps[0]).toMatchObject({
      step: 1,
      weightVersion: 1,
      episodes: 2,
      rewardMean: 0.5,
      rewardMin: 0,
      rewardMax: 1,
      samples: 1, // task-a's two episodes share their prompt: tree packing (the default) trains one tree
    });
    expect(steps.steps[0]!.tokensBefore).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'step' && e.runId === runId)).toBe(true);

    const page = await until(
      'timelines fetched',
      () => wb.backend.episodes({ runId, filter: {}, offset: 0, limit: 10, order: 'oldest' }),
      (p) => p.total === 2 && p.rows.every((r) => r.hasTimelines),
    );
    expect(page.rows.map((r) => [r.episodeId, r.status, r.taskId, r.codeVersion, r.reward])).toEqual([
      [before, 'ended', 'task-a', 'v-one', 1],
      [after, 'ended', 'task-a', 'v-two', 0],
    ]);
    // The vocabulary is stored once fetched: then tokens show their text instead of ⟨id⟩.
    const detail = await until(
      'vocabulary stored',
      () => wb.backend.episodeDetail({ runId, episodeId: after }),
      (d) => !d.calls[0]?.tokens.some((tok) => tok.text.startsWith('⟨')),
    );
    expect(detail.calls).toHaveLength(1);
    expect(detail.samples).toHaveLength(1);
    expect(detail.samples[0]!.tokens.some((tok) => tok.mask === 1)).toBe(true);
    expect(detail.calls[0]!.tokens.map((tok) => tok.text).join('')).toMatch(/hi/);

    await http(url, 'POST', '/swarm/v1/episodes', {
      token: TEST_TOKENS.join,
      body: { clientId: 'laptop', kind: 'eval', taskId: 'held' },
    }).then(async (c) => {
      const id = (c.body as { episodeId: string }).episodeId;
      await http(url, 'POST', `/swarm/v1/episodes/${id}/end`, {
        token: TEST_TOKENS.join,
        body: { taskId: 'held', reward: 1, success: true },
      });
    });
    const evals = await until(
      'an eval point',
      () => wb.backend.metrics({ runId }),
      (m) => m.evals.length === 1,
    );
    expect(evals.evals[0]).toMatchObject({ weightVersion: 1, episodes: 1, rewardMean: 1, successRate: 1 });

    // The list follows the events stream (coalesced): wait for the third end to be counted.
    const clients = await until(
      'the remote client listed with its three ends',
      () => wb.backend.clients({}),
      (c) => c.clients.some((x) => x.clientId === 'laptop' && x.ended === 3),
    );
    expect(clients.clients.find((x) => x.clientId === 'laptop')).toMatchObject({
      local: false,
      status: 'connected',
      ended: 3,
    });

    const unknown = await errorOf(wb.backend.episodeDetail({ runId, episodeId: 'no-such-episode' }));
    expect(unknown.code).toBe('not_found');
    expect((await errorOf(wb.backend.codeFiles({}))).code).toBe('no_code');
    expect(
      (await wb.backend.logs({ source: { kind: 'worker' }, limit: 500 })).lines.some((l) => l.stream === 'event'),
    ).toBe(true);

    await wb.backend.disconnect({});
    expect(await wb.backend.session({})).toBeNull();
    const runs = (await wb.backend.runs({})).runs;
    expect(runs.find((r) => r.runId === runId)).toMatchObject({ mode: 'remote', live: false, steps: 1, episodes: 3 });
    expect(runs.find((r) => r.runId === runId)!.endedAt).not.toBeNull();
  });

  it('runs local clients from a user folder against the remote worker, editing the folder in place', async () => {
    const t = await startFakeWorker({ training: { strategy: 'C1', batch: 100 } }, { engine: { reply: scriptedReply } });
    workers.push(t);
    const folder = mkdtempSync(join(tmpdir(), 'aj-wb-folder-'));
    try {
      writeFileSync(join(folder, 'reward.ts'), 'export const GREETING: string = "one";\n');
      writeFileSync(
        join(folder, 'client.ts'),
        'import { GREETING } from "./reward";\nconsole.log(`${GREETING} from ${process.env.AGENTJET_CLIENT_ID}`);\nsetInterval(() => undefined, 1000);\n',
      );
      const session = await wb.backend.connectRemote({
        url: t.worker.url,
        adminToken: TEST_TOKENS.admin,
        joinToken: TEST_TOKENS.join,
        example: folder,
        clients: 1,
      });
      expect(session.example).toBe(folder);
      const code = await wb.backend.codeFiles({});
      expect(code.entry).toBe('client.ts');
      expect(code.files.map((f) => [f.path, f.editable])).toEqual([
        ['client.ts', true],
        ['reward.ts', true],
      ]);
      await until(
        'the client says hello',
        () => wb.backend.logs({ source: { kind: 'client', clientId: 'wb-0' }, limit: 100 }),
        (l) => l.lines.some((x) => x.line === 'one from wb-0'),
      );
      const saved = await wb.backend.saveCode({
        files: [{ path: 'reward.ts', content: 'export const GREETING: string = "two";\n' }],
      });
      if (!saved.ok) throw new Error(JSON.stringify(saved.errors));
      expect(saved.previousCodeVersion).toBe(code.codeVersion);
      expect(readFileSync(join(folder, 'reward.ts'), 'utf8')).toContain('"two"');
      await until(
        'the new version says hello',
        () => wb.backend.logs({ source: { kind: 'client', clientId: 'wb-0' }, limit: 100 }),
        (l) => l.lines.some((x) => x.line === 'two from wb-0'),
      );
      const rows = (await wb.backend.clients({})).clients;
      expect(rows.find((c) => c.clientId === 'wb-0')).toMatchObject({
        local: true,
        status: 'running',
        codeVersion: saved.codeVersion,
      });
      const bad = await wb.backend.saveCode({ files: [{ path: 'client.ts', content: 'const x: number = ;\n' }] });
      expect(bad).toMatchObject({ ok: false, errors: [{ path: 'client.ts', line: 1 }] });
      expect((await errorOf(wb.backend.saveCode({ files: [{ path: '../outside.ts', content: '' }] }))).code).toBe(
        'bad_path',
      );
    } finally {
      await wb.backend.disconnect({});
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("connects even when the folder's client does not compile, and starts the clients once a save compiles", async () => {
    const t = await startFakeWorker({ training: { strategy: 'C1', batch: 100 } }, { engine: { reply: scriptedReply } });
    workers.push(t);
    const folder = mkdtempSync(join(tmpdir(), 'aj-wb-folder-'));
    try {
      writeFileSync(join(folder, 'reward.ts'), 'export const GREETING: string = "fixed";\n');
      writeFileSync(join(folder, 'client.ts'), 'import { GREETING } from "./reward";\nconsole.log(GREETING + );\n');
      const seen = events.length;
      const session = await wb.backend.connectRemote({
        url: t.worker.url,
        adminToken: TEST_TOKENS.admin,
        joinToken: TEST_TOKENS.join,
        example: folder,
        clients: 1,
      });
      expect(session.error).toMatchObject({
        code: 'compile_failed',
        message: expect.stringMatching(/^the client does not compile: client\.ts:2:/),
      });
      expect(events.slice(seen).some((e) => e.type === 'compile_failed' && e.errors[0]?.path === 'client.ts')).toBe(
        true,
      );
      const code = await wb.backend.codeFiles({});
      expect(code.codeVersion).toBeNull();
      expect(code.files.map((f) => f.path)).toEqual(['client.ts', 'reward.ts']);
      const fixed = await wb.backend.saveCode({
        files: [
          {
            path: 'client.ts',
            content:
              'import { GREETING } from "./reward";\nconsole.log(GREETING);\nsetInterval(() => undefined, 1000);\n',
          },
        ],
      });
      expect(fixed).toMatchObject({ ok: true, previousCodeVersion: null });
      expect((await wb.backend.session({}))?.error).toBeNull();
      await until(
        'the fixed client runs',
        () => wb.backend.logs({ source: { kind: 'client', clientId: 'wb-0' }, limit: 100 }),
        (l) => l.lines.some((x) => x.line === 'fixed'),
      );
    } finally {
      await wb.backend.disconnect({});
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
