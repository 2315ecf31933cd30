import { describe, expect, it } from 'vitest';
import {
  createWorkbenchClient,
  WorkbenchError,
  type WorkbenchMethod,
  type WorkbenchTransport,
} from '../../../shared/workbench-api';
import type { ConnectionStatus } from '../api/ws-transport';
import { clientRow, session, stepPoint } from '../test-fixtures';
import { openRun } from './state';
import { createAppStore } from './store';
import { startSync } from './sync';

/** A fake transport answering calls from a table and letting the test push raw events. */
class FakeTransport implements WorkbenchTransport {
  readonly calls: [WorkbenchMethod, unknown][] = [];
  private listeners = new Set<(raw: unknown) => void>();
  constructor(private readonly answers: Partial<Record<WorkbenchMethod, (params: unknown) => unknown>>) {}
  async call(method: WorkbenchMethod, params: unknown): Promise<unknown> {
    this.calls.push([method, params]);
    const a = this.answers[method];
    if (!a) throw new WorkbenchError('unknown', `no fake answer for ${method}`);
    return a(params);
  }
  subscribe(l: (raw: unknown) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  push(raw: unknown): void {
    for (const l of this.listeners) l(raw);
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
}

const settle = () => new Promise((r) => setTimeout(r, 5));

/** Events reach the store at once unless a test passes its own scheduler. */
const immediately = (flush: () => void): void => flush();

function harness(
  answers: ConstructorParameters<typeof FakeTransport>[0],
  initial: ConnectionStatus = 'open',
  schedule: (flush: () => void) => void = immediately,
) {
  const t = new FakeTransport(answers);
  const api = createWorkbenchClient(t);
  const store = createAppStore();
  const errors: string[] = [];
  let status = initial;
  const statusListeners = new Set<(s: ConnectionStatus) => void>();
  const dispose = startSync({
    api,
    store,
    status: () => status,
    onStatus: (l) => {
      statusListeners.add(l);
      return () => statusListeners.delete(l);
    },
    reportError: (m) => errors.push(m),
    schedule,
  });
  const setStatus = (s: ConnectionStatus) => {
    status = s;
    for (const l of statusListeners) l(s);
  };
  return { t, store, errors, dispose, setStatus };
}

const runIdOf = (p: unknown): string =>
  typeof p === 'object' && p !== null && 'runId' in p && typeof p.runId === 'string' ? p.runId : '';
const metricsOf = (runId: string, steps: number[]) => ({
  runId,
  steps: steps.map((n) => stepPoint(n)),
  evals: [],
  markers: [],
});

describe('startSync', () => {
  it('loads the session, its clients and its stored metrics when the transport is open', async () => {
    const h = harness({
      session: () => session('r1'),
      clients: () => ({ clients: [clientRow('wb-0')] }),
      metrics: (p) => metricsOf(runIdOf(p), [1, 2]),
    });
    await settle();
    const s = h.store.getState();
    expect(s.runId).toBe('r1');
    expect(s.steps.map((p) => p.step)).toEqual([1, 2]);
    expect(s.metricsLoaded).toBe(true);
    expect(s.clients.map((c) => c.clientId)).toEqual(['wb-0']);
    expect(h.errors).toEqual([]);
    h.dispose();
  });

  it('applies pushed events and drops malformed ones', async () => {
    const h = harness({
      session: () => session('r1'),
      clients: () => ({ clients: [] }),
      metrics: () => metricsOf('r1', []),
    });
    await settle();
    h.t.push({ type: 'step', runId: 'r1', point: stepPoint(7) });
    h.t.push({ type: 'step', runId: 'r1', point: { step: 'x' } });
    expect(h.store.getState().steps.map((p) => p.step)).toEqual([7]);
    h.dispose();
    expect(h.t.listenerCount).toBe(0);
    h.t.push({ type: 'step', runId: 'r1', point: stepPoint(8) });
    expect(h.store.getState().steps).toHaveLength(1);
  });

  it("toasts the backend's reward-hacking alarm when it rings and keeps both verdicts in the log", async () => {
    const h = harness({
      session: () => session('r1'),
      clients: () => ({ clients: [] }),
      metrics: () => metricsOf('r1', []),
    });
    await settle();
    const verdict = { alarm: true, scoreRise: 0.8, successDrop: 0.2, successDropSe: 0.05, window: 60 };
    const alarm = { type: 'reward_hacking', runId: 'r1', verdict, episodes: 180, message: 'possible reward hacking' };
    h.t.push({ ...alarm, at: 1 });
    h.t.push({ ...alarm, verdict: { ...verdict, alarm: false }, message: 'alarm cleared', at: 2 });
    expect(h.errors).toEqual(['possible reward hacking']);
    expect(h.store.getState().logs.map((l) => l.line)).toEqual([
      '[warn] rewards (run r1): possible reward hacking',
      '[warn] rewards (run r1): alarm cleared',
    ]);
    h.dispose();
  });

  it('coalesces pushed events into one store update, in arrival order; a resync applies what is queued first', async () => {
    const pending: (() => void)[] = [];
    const h = harness(
      { session: () => session('r1'), clients: () => ({ clients: [] }), metrics: () => metricsOf('r1', []) },
      'open',
      (f) => pending.push(f),
    );
    await settle();
    let updates = 0;
    const off = h.store.subscribe(() => updates++);
    for (let i = 1; i <= 50; i++) h.t.push({ type: 'step', runId: 'r1', point: stepPoint(i) });
    h.t.push({ type: 'log', line: { t: 1, source: { kind: 'worker' }, stream: 'stdout', line: 'hello' } });
    expect(pending).toHaveLength(1);
    expect(updates).toBe(0);
    pending.shift()!();
    expect(updates).toBe(1);
    expect(h.store.getState().steps.map((p) => p.step)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(h.store.getState().logs.map((l) => l.line)).toEqual(['hello']);
    // Queued events are applied before a reconnect's resync writes the store.
    h.t.push({ type: 'step', runId: 'r1', point: stepPoint(51) });
    h.setStatus('reconnecting');
    expect(h.store.getState().steps.at(-1)?.step).toBe(51);
    pending.shift()!(); // the scheduled flush finds nothing left
    expect(h.store.getState().steps).toHaveLength(51);
    off();
    h.dispose();
  });

  it('loads a reopened run and resyncs after a reconnect', async () => {
    const h = harness(
      {
        session: () => session('r1'),
        clients: () => ({ clients: [] }),
        metrics: (p) => metricsOf(runIdOf(p), runIdOf(p) === 'old' ? [1, 2, 3] : [1]),
      },
      'connecting',
    );
    await settle();
    expect(h.t.calls).toEqual([]);
    h.setStatus('open');
    await settle();
    expect(h.store.getState().steps).toHaveLength(1);
    h.store.setState((s) => openRun(s, 'old'));
    await settle();
    expect(h.store.getState().steps).toHaveLength(3);
    h.setStatus('reconnecting');
    expect(h.store.getState().connection).toBe('reconnecting');
    h.setStatus('open');
    await settle();
    // Still viewing the reopened run, reloaded from the store after the reconnect.
    expect(h.store.getState().runId).toBe('old');
    expect(h.t.calls.filter(([m]) => m === 'metrics')).toHaveLength(3);
    h.dispose();
  });

  it('reports a failed load as an error instead of throwing', async () => {
    const h = harness({
      session: () => session('r1'),
      clients: () => ({ clients: [] }),
      metrics: () => ({ bad: true }),
    });
    await settle();
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]).toMatch(/Could not load the run's metrics: metrics: unexpected result/);
    h.dispose();
  });
});
