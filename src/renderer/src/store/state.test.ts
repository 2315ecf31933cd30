import { describe, expect, it } from 'vitest';
import { clientRow, episodeRow, evalPoint, marker, session, stepPoint } from '../test-fixtures';
import {
  appendCapped,
  applyEvent,
  applyMetrics,
  initialState,
  isLive,
  latestEpisode,
  LIMITS,
  openRun,
  upsertSorted,
  type WorkbenchState,
} from './state';

const live = (runId: string): WorkbenchState => applyEvent(initialState, { type: 'session', session: session(runId) });

describe('list helpers', () => {
  it('appendCapped keeps the newest items', () => {
    expect(appendCapped([1, 2, 3], 4, 3)).toEqual([2, 3, 4]);
    expect(appendCapped([], 1, 3)).toEqual([1]);
  });
  it('upsertSorted inserts in order, replaces equal keys, caps from the front', () => {
    const id = (n: number) => n;
    expect(upsertSorted([1, 3, 5], 4, id, 10)).toEqual([1, 3, 4, 5]);
    expect(upsertSorted([1, 3, 5], 0, id, 10)).toEqual([0, 1, 3, 5]);
    expect(upsertSorted([1, 3, 5], 6, id, 3)).toEqual([3, 5, 6]);
    const objs = [
      { k: 1, v: 'a' },
      { k: 2, v: 'b' },
    ];
    expect(upsertSorted(objs, { k: 1, v: 'z' }, (o) => o.k, 10)).toEqual([
      { k: 1, v: 'z' },
      { k: 2, v: 'b' },
    ]);
  });
});

describe('session events', () => {
  it('a new session takes over the view while following live', () => {
    const s = live('r1');
    expect(s.runId).toBe('r1');
    expect(isLive(s)).toBe(true);
    const s2 = applyEvent({ ...s, steps: [stepPoint(1)] }, { type: 'session', session: session('r2') });
    expect(s2.runId).toBe('r2');
    expect(s2.steps).toEqual([]);
  });
  it('a session update of the same run keeps the points', () => {
    const s = { ...live('r1'), steps: [stepPoint(1)] };
    const s2 = applyEvent(s, { type: 'session', session: session('r1', { step: 1 }) });
    expect(s2.steps).toHaveLength(1);
    expect(s2.session?.step).toBe(1);
  });
  it('disconnecting keeps the viewed run but clears clients', () => {
    const s = { ...live('r1'), steps: [stepPoint(1)], clients: [clientRow('c1')] };
    const s2 = applyEvent(s, { type: 'session', session: null });
    expect(s2.session).toBeNull();
    expect(s2.runId).toBe('r1');
    expect(s2.steps).toHaveLength(1);
    expect(s2.clients).toEqual([]);
    expect(isLive(s2)).toBe(false);
  });
  it('a reopened past run is not replaced by live session updates', () => {
    const s = openRun(live('r1'), 'old');
    expect(s.runId).toBe('old');
    expect(s.followLive).toBe(false);
    const s2 = applyEvent(s, { type: 'session', session: session('r1', { step: 5 }) });
    expect(s2.runId).toBe('old');
    expect(s2.session?.step).toBe(5);
    expect(openRun(s2, 'r1').followLive).toBe(true);
  });
});

describe('metric events', () => {
  it('step events of the viewed run are kept in step order without duplicates', () => {
    let s = live('r1');
    for (const n of [1, 3, 2, 3]) s = applyEvent(s, { type: 'step', runId: 'r1', point: stepPoint(n) });
    expect(s.steps.map((p) => p.step)).toEqual([1, 2, 3]);
  });
  it('events of another run are ignored', () => {
    const s = live('r1');
    expect(applyEvent(s, { type: 'step', runId: 'other', point: stepPoint(1) })).toBe(s);
    expect(applyEvent(s, { type: 'eval', runId: 'other', point: evalPoint(1) })).toBe(s);
    expect(applyEvent(s, { type: 'code', runId: 'other', marker: marker('v', 1) })).toBe(s);
    expect(applyEvent(s, { type: 'episode', runId: 'other', row: episodeRow('e') })).toBe(s);
  });
  it('caps the step history', () => {
    let s: WorkbenchState = { ...live('r1'), steps: Array.from({ length: LIMITS.steps }, (_, i) => stepPoint(i)) };
    s = applyEvent(s, { type: 'step', runId: 'r1', point: stepPoint(LIMITS.steps) });
    expect(s.steps).toHaveLength(LIMITS.steps);
    expect(s.steps[0]?.step).toBe(1);
  });
  it('eval points are keyed by weight version', () => {
    let s = live('r1');
    s = applyEvent(s, { type: 'eval', runId: 'r1', point: evalPoint(2, 0.1) });
    s = applyEvent(s, { type: 'eval', runId: 'r1', point: evalPoint(2, 0.7) });
    expect(s.evals).toEqual([evalPoint(2, 0.7)]);
  });
  it('code markers are added once and clear compile errors', () => {
    let s = live('r1');
    s = applyEvent(s, {
      type: 'compile_failed',
      runId: 'r1',
      errors: [{ path: 'reward.ts', line: 1, column: 1, message: 'x' }],
    });
    expect(s.compileErrors).toHaveLength(1);
    s = applyEvent(s, { type: 'code', runId: 'r1', marker: marker('v2', 3) });
    s = applyEvent(s, { type: 'code', runId: 'r1', marker: marker('v2', 3) });
    expect(s.markers).toHaveLength(1);
    expect(s.compileErrors).toEqual([]);
  });
  it('stored metrics merge with live points that arrived first', () => {
    let s = live('r1');
    s = applyEvent(s, { type: 'step', runId: 'r1', point: stepPoint(5, { rewardMean: 9 }) });
    s = applyMetrics(s, {
      runId: 'r1',
      steps: [stepPoint(3), stepPoint(4), stepPoint(5)],
      evals: [evalPoint(1)],
      markers: [marker('a', 0)],
    });
    expect(s.steps.map((p) => p.step)).toEqual([3, 4, 5]);
    expect(s.steps[2]?.rewardMean).toBe(9);
    expect(s.evals).toHaveLength(1);
    expect(s.markers).toHaveLength(1);
    expect(s.metricsLoaded).toBe(true);
  });
  it('metrics of a run no longer viewed are dropped', () => {
    const s = openRun(live('r1'), 'r0');
    expect(applyMetrics(s, { runId: 'r1', steps: [stepPoint(1)], evals: [], markers: [] })).toBe(s);
  });
});

describe('episodes, clients, logs', () => {
  it('keeps recent episodes newest first, updating a row in place by id', () => {
    let s = live('r1');
    s = applyEvent(s, { type: 'episode', runId: 'r1', row: episodeRow('e1', { status: 'open' }) });
    s = applyEvent(s, { type: 'episode', runId: 'r1', row: episodeRow('e2') });
    s = applyEvent(s, { type: 'episode', runId: 'r1', row: episodeRow('e1', { status: 'ended' }) });
    expect(s.episodes.map((e) => `${e.episodeId}:${e.status}`)).toEqual(['e1:ended', 'e2:ended']);
    expect(latestEpisode(s)?.episodeId).toBe('e1');
    expect(latestEpisode(initialState)).toBeNull();
  });
  it('replaces the client table and caps logs', () => {
    let s = applyEvent(live('r1'), { type: 'clients', clients: [clientRow('a'), clientRow('b')] });
    expect(s.clients.map((c) => c.clientId)).toEqual(['a', 'b']);
    for (let i = 0; i < LIMITS.logs + 5; i++)
      s = applyEvent(s, {
        type: 'log',
        line: { t: i, source: { kind: 'client', clientId: 'a' }, stream: 'stdout', line: `l${i}` },
      });
    expect(s.logs).toHaveLength(LIMITS.logs);
    expect(s.logs.at(-1)?.line).toBe(`l${LIMITS.logs + 4}`);
  });
});
