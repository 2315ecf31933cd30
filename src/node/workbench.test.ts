// The workbench end to end in plain Node, with a real local worker (built-in model) launched as a
// child process and two real calculator-agent clients: progress while starting, steps in the
// Store, the editor's files, a hot-swap of an edited reward (new code version, marker, clients
// restarted, episodes tagged, the repository untouched), a compile error that leaves the clients
// running, client actions, logs, and the run readable again after the workbench is reopened.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkbenchError, type ClientRow, type WorkbenchEvent } from '../shared/workbench-api';
import { createWorkbench, REPO_ROOT, type Workbench } from './workbench';

const dataDir = mkdtempSync(join(tmpdir(), 'aj-wb-'));
const workbenches: Workbench[] = [];
afterAll(async () => {
  await Promise.all(workbenches.map((w) => w.dispose()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function open(): Promise<Workbench> {
  const wb = await createWorkbench({
    dataDir,
    log: () => undefined,
    workerConfig: { threads: 1, seed: 1 },
    evalEpisodes: 2,
    evalEvery: 1000,
  });
  workbenches.push(wb);
  return wb;
}

async function until<T>(what: string, fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`${what}: not within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const REWARD = 'resources/examples/calculator-agent/reward.ts';
const pids = (rows: ClientRow[]): (number | null)[] => rows.filter((c) => c.local).map((c) => c.pid);

describe('workbench with a real local worker', () => {
  it('connects, trains, hot-swaps an edited reward, survives a compile error, and keeps the run after a reopen', async () => {
    const wb = await open();
    const events: WorkbenchEvent[] = [];
    wb.onEvent((e) => events.push(e));
    const b = wb.backend;
    expect((await b.examples({})).examples.map((e) => e.name)).toEqual([
      'calculator-agent',
      'calculator-rm',
      'guess-number',
    ]);

    const session = await b.connectLocal({
      model: 'builtin',
      example: 'calculator-agent',
      clients: 2,
      strategy: 'C2',
      batch: 2,
      groupSize: 2,
      maxTokens: 24,
    });
    const runId = session.runId;
    expect(session).toMatchObject({
      mode: 'local',
      model: 'agentjet-tiny',
      example: 'calculator-agent',
      strategy: 'C2',
      activity: null,
      error: null,
    });
    expect(session.workerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const phases = events.flatMap((e) =>
      e.type === 'session' && e.session?.activity ? [e.session.activity.phase] : [],
    );
    expect(phases).toEqual(expect.arrayContaining(['starting_worker', 'loading_model', 'starting_clients']));
    expect(phases.indexOf('starting_worker')).toBeLessThan(phases.indexOf('loading_model'));

    // The editor: the entry and every local source it bundles, paths from the repository root.
    const code = await b.codeFiles({});
    expect(code.entry).toBe('resources/examples/calculator-agent/client-openai.ts');
    expect(code.files[0]!.path).toBe(code.entry);
    const v1 = code.codeVersion!;
    expect(v1).toMatch(/^[0-9a-f]{12}$/);
    expect(code.files.every((f) => !f.path.startsWith('..') && !f.path.startsWith('/'))).toBe(true);
    const reward = code.files.find((f) => f.path === REWARD);
    expect(reward?.editable).toBe(true);
    expect(code.files.find((f) => f.path.startsWith('src/shared/'))?.editable).toBe(false);

    // Training: a step arrives and is in the Store; episodes carry the code version.
    const m1 = await until(
      'a training step',
      () => b.metrics({ runId }),
      (m) => m.steps.length >= 1,
      80_000,
    );
    expect(m1.steps[0]).toMatchObject({ episodes: 4, weightVersion: m1.steps[0]!.step }); // step 0 when no group had a reward spread (nothing to train)
    expect(m1.steps[0]!.rewardMin).toBeLessThanOrEqual(m1.steps[0]!.rewardMax);
    expect(m1.steps[0]!.updateS).toBeGreaterThan(0);
    const first = await b.episodes({
      runId,
      filter: { kind: 'train', status: 'ended' },
      offset: 0,
      limit: 50,
      order: 'oldest',
    });
    expect(first.rows.length).toBeGreaterThanOrEqual(4);
    expect(first.rows.every((r) => r.codeVersion === v1)).toBe(true);
    const clients1 = await until(
      'two running local clients',
      () => b.clients({}),
      (c) => c.clients.filter((x) => x.local && x.status === 'running').length === 2,
    );
    expect(
      clients1.clients
        .filter((c) => c.local)
        .map((c) => c.clientId)
        .sort(),
    ).toEqual(['wb-0', 'wb-1']);

    // Save an edited reward: a new code version, a marker, the clients restarted with it.
    const original = readFileSync(join(REPO_ROOT, REWARD), 'utf8');
    const edited = reward!.content.replace('reward: success ? 1 : 0,', 'reward: success ? 1 : 0.125,');
    expect(edited).not.toBe(reward!.content);
    const before = pids(clients1.clients);
    const saved = await b.saveCode({ files: [{ path: REWARD, content: edited }] });
    if (!saved.ok) throw new Error(JSON.stringify(saved.errors));
    const v2 = saved.codeVersion;
    expect(v2).not.toBe(v1);
    expect(saved.previousCodeVersion).toBe(v1);
    expect(readFileSync(join(REPO_ROOT, REWARD), 'utf8')).toBe(original); // the repository is never modified
    expect(existsSync(join(dataDir, 'runs', runId, 'code', 'overlay', ...REWARD.split('/')))).toBe(true);
    expect(
      events.some((e) => e.type === 'code' && e.marker.codeVersion === v2 && e.marker.previousCodeVersion === v1),
    ).toBe(true);
    const clients2 = await b.clients({});
    expect(pids(clients2.clients).some((p) => before.includes(p))).toBe(false);
    expect(clients2.clients.filter((c) => c.local).every((c) => c.codeVersion === v2)).toBe(true);
    expect((await b.metrics({ runId })).markers).toEqual([
      expect.objectContaining({ codeVersion: v2, previousCodeVersion: v1 }),
    ]);
    expect((await b.codeFiles({})).files.find((f) => f.path === REWARD)?.content).toBe(edited);
    const versions = (await b.codeVersions({ runId })).versions.map((v) => v.codeVersion);
    expect(versions).toEqual([v1, v2]);
    expect((await b.codeVersionFiles({ runId, codeVersion: v2 })).files.find((f) => f.path === REWARD)?.content).toBe(
      edited,
    );

    // Episodes played by the new version are tagged with it and scored by the edited reward.
    const tagged = await until(
      'episodes of the new version',
      () =>
        b.episodes({
          runId,
          filter: { codeVersion: v2, kind: 'train', status: 'ended' },
          offset: 0,
          limit: 50,
          order: 'oldest',
        }),
      (p) => p.total >= 1,
    );
    for (const r of tagged.rows) expect([0.125, 1]).toContain(r.reward);

    // A compile error: errors with file:line from the repository root, the clients keep running.
    const running = pids((await b.clients({})).clients);
    const broken = await b.saveCode({ files: [{ path: REWARD, content: `${edited}\nexport const oops = ;\n` }] });
    expect(broken.ok).toBe(false);
    if (broken.ok) return;
    expect(broken.errors[0]).toMatchObject({ path: REWARD, line: edited.split('\n').length + 1 });
    expect(events.some((e) => e.type === 'compile_failed' && e.errors[0]?.path === REWARD)).toBe(true);
    const after = (await b.clients({})).clients;
    expect(pids(after)).toEqual(running);
    expect(after.filter((c) => c.local).every((c) => c.status === 'running' && c.codeVersion === v2)).toBe(true);
    expect((await b.codeFiles({})).codeVersion).toBe(v2);
    const notEditable = await b.saveCode({ files: [{ path: 'src/shared/chat.ts', content: '' }] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(notEditable).toBeInstanceOf(WorkbenchError);

    // Client actions and logs.
    await b.clientAction({ clientId: 'wb-1', action: 'stop' });
    expect((await b.clients({})).clients.find((c) => c.clientId === 'wb-1')?.status).toBe('stopped');
    await b.clientAction({ clientId: 'wb-1', action: 'start' });
    expect((await b.clients({})).clients.find((c) => c.clientId === 'wb-1')?.status).toMatch(/starting|running/);
    const workerLines = (await b.logs({ source: { kind: 'worker' }, limit: 5000 })).lines;
    expect(workerLines.some((l) => /listening on/.test(l.line))).toBe(true);
    expect(workerLines.some((l) => l.stream === 'stdout' && /strategy C2 · batch 2 · group 2/.test(l.line))).toBe(true);
    expect(workerLines.some((l) => l.stream === 'event')).toBe(true);
    // Each line stored once: a log event's line is not also stored from the worker's stderr.
    const output = new Set(workerLines.filter((l) => l.stream !== 'event').map((l) => l.line));
    expect(workerLines.filter((l) => l.stream === 'event' && output.has(l.line))).toEqual([]);
    expect((await b.logs({ source: { kind: 'client', clientId: 'wb-0' }, limit: 500 })).lines.length).toBeGreaterThan(
      0,
    );

    // Timelines of a finished episode are fetched and shown merged, with trained tokens.
    const withTimelines = await until(
      'an episode with timelines',
      () => b.episodes({ runId, filter: { status: 'ended', kind: 'train' }, offset: 0, limit: 200, order: 'oldest' }),
      (p) => p.rows.some((r) => r.hasTimelines),
    );
    const detail = await b.episodeDetail({
      runId,
      episodeId: withTimelines.rows.find((r) => r.hasTimelines)!.episodeId,
    });
    expect(detail.calls.length).toBeGreaterThan(0);
    expect(detail.samples[0]!.tokens.some((t) => t.mask === 1)).toBe(true);
    expect(await b.episodeDetail({ runId, episodeId: 'no-such-episode' }).catch((e: unknown) => e)).toMatchObject({
      code: 'not_found',
    });

    // The held-out eval at the start was charted.
    await until(
      'an eval point',
      () => b.metrics({ runId }),
      (m) => m.evals.length >= 1,
      30_000,
    );

    // The worker restarts on request from its checkpoint, on the same URL; the events resume.
    await b.restartWorker({});
    const seen = events.length;
    expect((await b.session({}))?.workerUrl).toBe(session.workerUrl);
    expect(
      (await b.logs({ source: { kind: 'worker' }, limit: 5000 })).lines.filter((l) => /listening on/.test(l.line)),
    ).toHaveLength(2);
    await until(
      'events after the restart',
      () => events.slice(seen),
      (e) => e.some((x) => x.type === 'episode' && x.row.status === 'ended'),
      60_000,
    );

    await b.disconnect({});
    expect(await b.session({})).toBeNull();
    expect((await b.clients({})).clients).toEqual([]);
    await wb.dispose();

    // Reopened: the past run, its steps, episodes and code versions read from SQLite.
    const again = await open();
    const runs = (await again.backend.runs({})).runs;
    expect(runs.find((r) => r.runId === runId)).toMatchObject({
      mode: 'local',
      live: false,
      example: 'calculator-agent',
    });
    expect((await again.backend.metrics({ runId })).steps.length).toBeGreaterThanOrEqual(1);
    expect((await again.backend.codeVersions({ runId })).versions.map((v) => v.codeVersion)).toEqual([v1, v2]);
  }, 170_000);
});
