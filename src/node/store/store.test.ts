import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError, type StepPoint } from '../../shared/workbench-api';
import { openStore } from './store';
import { clientRow, episodeInput, newRun, stepPoint, tempStore, type TempStore } from './test-support';

describe('store: runs, metrics, code, clients, vocab, logs', () => {
  let temp: TempStore;
  beforeEach(() => {
    temp = tempStore({ logCap: 100 });
  });
  afterEach(() => temp.cleanup());

  it('opens the file in WAL mode, and a second connection reads what the first committed', () => {
    temp.store.createRun(newRun('r'));
    expect(temp.store.path).toBe(temp.path);
    expect(existsSync(`${temp.path}-wal`)).toBe(true);
    const other = new Database(temp.path, { readonly: true });
    expect(other.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(other.prepare('SELECT run_id FROM runs').pluck().all()).toEqual(['r']);
    other.close();
    const again = openStore(temp.path);
    expect(again.getRun('r').runId).toBe('r');
    again.close();
  });

  it('creates, lists, ends runs; the live one is marked; config snapshot kept', () => {
    const { store } = temp;
    store.createRun(newRun('a', { createdAt: 1 }));
    store.createRun(newRun('b', { createdAt: 2, mode: 'remote', example: null, config: { url: 'x', nested: [1, 2] } }));
    expect(store.listRuns('b').map((r) => [r.runId, r.live])).toEqual([
      ['b', true],
      ['a', false],
    ]);
    expect(store.getRun('b')).toMatchObject({
      mode: 'remote',
      example: null,
      config: { url: 'x', nested: [1, 2] },
      endedAt: null,
    });
    store.endRun('a', 99);
    expect(store.getRunRow('a', null)).toMatchObject({
      endedAt: 99,
      live: false,
      steps: 0,
      episodes: 0,
      lastRewardMean: null,
      lastEvalSuccess: null,
    });
    expect(() => store.createRun(newRun('a'))).toThrow(/already exists/);
  });

  it('counts steps and episodes and reports the last reward and eval success in the run list', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    store.transaction(() => {
      for (const s of [1, 3, 2]) store.putStep('r', stepPoint(s, { rewardMean: s * 10 }));
      store.putEval('r', { weightVersion: 1, time: 10, episodes: 4, rewardMean: 0.5, successRate: 0.25 });
      store.putEval('r', { weightVersion: 2, time: 20, episodes: 4, rewardMean: 0.7, successRate: 0.75 });
      store.putEpisode('r', episodeInput('e1'));
      store.putEpisode('r', episodeInput('e2'));
    });
    expect(store.listRuns(null)[0]).toMatchObject({ steps: 3, episodes: 2, lastRewardMean: 30, lastEvalSuccess: 0.75 });
  });

  it('upserts steps by (run, step) and returns metrics in order', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    store.putStep('r', stepPoint(2));
    store.putStep('r', stepPoint(1));
    store.putStep('r', stepPoint(2, { rewardMean: 0.9, loss: null }));
    store.putEval('r', { weightVersion: 2, time: 20, episodes: 4, rewardMean: 0.7, successRate: null });
    store.putEval('r', { weightVersion: 1, time: 10, episodes: 4, rewardMean: 0.5, successRate: 0.5 });
    store.putMarker('r', { codeVersion: 'v2', previousCodeVersion: 'v1', time: 30, step: 2 });
    store.putMarker('r', { codeVersion: 'v1', previousCodeVersion: null, time: 5, step: 0 });
    const m = store.metrics('r');
    expect(m.runId).toBe('r');
    expect(m.steps).toEqual([stepPoint(1), stepPoint(2, { rewardMean: 0.9, loss: null })]);
    expect(m.evals.map((e) => e.weightVersion)).toEqual([1, 2]);
    expect(m.markers).toEqual([
      { codeVersion: 'v1', previousCodeVersion: null, time: 5, step: 0 },
      { codeVersion: 'v2', previousCodeVersion: 'v1', time: 30, step: 2 },
    ]);
  });

  it('rejects an invalid point with a clear error and stores nothing', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    const bad: StepPoint = { ...stepPoint(1), rewardMean: Number.NaN };
    expect(() => store.putStep('r', bad)).toThrow(/step point: rewardMean/);
    expect(() => store.putClient('r', clientRow('c', { claimed: -1 }))).toThrow(WorkbenchError);
    expect(store.metrics('r').steps).toEqual([]);
    expect(store.listClients('r')).toEqual([]);
  });

  it('stores code versions with deduplicated file contents', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    store.createRun(newRun('s'));
    const shared = { path: 'reward.ts', content: 'export const reward = 1;\n' };
    store.putCodeVersion('r', {
      codeVersion: 'v1',
      createdAt: 1,
      step: null,
      files: [{ path: 'client.ts', content: 'one' }, shared],
    });
    store.putCodeVersion('r', {
      codeVersion: 'v2',
      createdAt: 2,
      step: 5,
      files: [{ path: 'client.ts', content: 'two' }, shared],
    });
    store.putCodeVersion('s', { codeVersion: 'v1', createdAt: 1, step: 0, files: [shared] });
    // A repeated put is idempotent and may only fill a missing step.
    store.putCodeVersion('r', {
      codeVersion: 'v1',
      createdAt: 1,
      step: 3,
      files: [{ path: 'client.ts', content: 'one' }, shared],
    });
    store.putCodeVersion('r', { codeVersion: 'v1', createdAt: 1, step: 9, files: [] });
    expect(store.listCodeVersions('r')).toEqual([
      { codeVersion: 'v1', createdAt: 1, step: 3, files: ['client.ts', 'reward.ts'] },
      { codeVersion: 'v2', createdAt: 2, step: 5, files: ['client.ts', 'reward.ts'] },
    ]);
    expect(store.codeVersionFiles('r', 'v2')).toEqual([{ path: 'client.ts', content: 'two' }, shared]);
    expect(store.codeVersionFiles('s', 'v1')).toEqual([shared]);
    store.putCodeVersion('s', { codeVersion: 'v9', createdAt: 3, step: null, files: [shared] });
    store.setCodeVersionStep('s', 'v9', 7);
    store.setCodeVersionStep('s', 'v9', 8);
    expect(store.listCodeVersions('s').find((v) => v.codeVersion === 'v9')?.step).toBe(7);
    expect(() => store.codeVersionFiles('r', 'nope')).toThrow(/run "r" has no code version "nope"/);
    expect(() => store.setCodeVersionStep('r', 'nope', 1)).toThrow(WorkbenchError);
  });

  it('upserts clients', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    store.putClient('r', clientRow('c2'));
    store.putClient('r', clientRow('c1'));
    store.putClient('r', clientRow('c2', { status: 'crashed', pid: null, restarts: 1 }));
    expect(store.listClients('r')).toEqual([
      clientRow('c1'),
      clientRow('c2', { status: 'crashed', pid: null, restarts: 1 }),
    ]);
  });

  it('keeps one vocabulary per content, shared by runs', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    store.createRun(newRun('s'));
    expect(store.hasVocab('r')).toBe(false);
    store.putVocab('r', ['a', 'b']);
    store.putVocab('s', ['a', 'b']);
    expect(store.hasVocab('r')).toBe(true);
    expect(store.hasVocab('s')).toBe(true);
  });

  it('returns the last log lines of a source, oldest first, and caps lines per run', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    store.transaction(() => {
      for (let i = 0; i < 500; i++)
        store.appendLog('r', {
          t: i,
          source: i % 2 === 0 ? { kind: 'worker' } : { kind: 'client', clientId: 'c1' },
          stream: 'stdout',
          line: `line ${i}`,
        });
    });
    expect(store.recentLogs('r', { kind: 'worker' }, 3).map((l) => l.line)).toEqual([
      'line 494',
      'line 496',
      'line 498',
    ]);
    expect(store.recentLogs('r', { kind: 'client', clientId: 'c1' }, 1)).toEqual([
      { t: 499, source: { kind: 'client', clientId: 'c1' }, stream: 'stdout', line: 'line 499' },
    ]);
    // Cap 100 (+10% slack before a trim): the oldest went, the newest stayed.
    const kept =
      store.recentLogs('r', { kind: 'worker' }, 1000).length +
      store.recentLogs('r', { kind: 'client', clientId: 'c1' }, 1000).length;
    expect(kept).toBeGreaterThanOrEqual(100);
    expect(kept).toBeLessThanOrEqual(110);
    expect(store.recentLogs('r', { kind: 'worker' }, 1000)[0]?.t).toBeGreaterThan(300);
    expect(() =>
      store.appendLog('r', {
        t: 1,
        source: { kind: 'client', clientId: 'x' },
        stream: 'stdout',
        line: 5 as unknown as string,
      }),
    ).toThrow(/log line/);
  });

  it('throws not_found for unknown runs', () => {
    const { store } = temp;
    const notFound = (fn: () => unknown): void => {
      try {
        fn();
        expect.unreachable('expected not_found');
      } catch (err) {
        expect(err).toBeInstanceOf(WorkbenchError);
        expect(err).toMatchObject({ code: 'not_found', message: 'no run "ghost" in the store' });
      }
    };
    notFound(() => store.getRun('ghost'));
    notFound(() => store.metrics('ghost'));
    notFound(() => store.putStep('ghost', stepPoint(1)));
    notFound(() => store.listClients('ghost'));
    notFound(() => store.episodesPage('ghost', {}, 0, 10, 'newest'));
    notFound(() => store.endRun('ghost', 1));
  });

  it('rolls a failed transaction back as a whole', () => {
    const { store } = temp;
    store.createRun(newRun('r'));
    expect(() =>
      store.transaction(() => {
        store.putStep('r', stepPoint(1));
        store.createRun(newRun('inside'));
        store.putEpisode('r', episodeInput('e1'));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.metrics('r').steps).toEqual([]);
    expect(store.listRuns(null).map((r) => r.runId)).toEqual(['r']);
    expect(() => store.getRun('inside')).toThrow(/no run "inside"/);
    // Nested transactions join the outer one.
    store.transaction(() => {
      store.putStep('r', stepPoint(1));
      store.transaction(() => store.putStep('r', stepPoint(2)));
    });
    expect(store.metrics('r').steps.map((s) => s.step)).toEqual([1, 2]);
  });
});
