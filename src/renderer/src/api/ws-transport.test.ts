import { describe, expect, it } from 'vitest';
import { createWorkbenchClient, WorkbenchError } from '../../../shared/workbench-api';
import { WsTransport, type Clock, type ConnectionStatus, type SocketHandlers } from './ws-transport';

/** A fake socket the test drives: it records sent frames and lets the test open/close it and push frames. */
class FakeSocket {
  readonly sent: unknown[] = [];
  closed = false;
  constructor(
    readonly url: string,
    readonly h: SocketHandlers,
  ) {}
  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }
  close(): void {
    this.closed = true;
  }
  reply(frame: unknown): void {
    this.h.message(JSON.stringify(frame));
  }
  lastCall(): { id: number; method: string; params: unknown } {
    const f = this.sent.at(-1);
    if (!f || typeof f !== 'object') throw new Error('nothing sent');
    return f as { id: number; method: string; params: unknown };
  }
}

/** A manual clock: timers run only when the test advances it. */
class FakeClock implements Clock {
  now = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.push({ at: this.now + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== h);
  }
  random(): number {
    return 1;
  }
  advance(ms: number): void {
    this.now += ms;
    const due = this.timers.filter((t) => t.at <= this.now).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => t.at > this.now);
    for (const t of due) t.fn();
  }
  get pendingTimers(): number {
    return this.timers.length;
  }
}

function setup(queueTimeoutMs = 1000) {
  const sockets: FakeSocket[] = [];
  const problems: string[] = [];
  const statuses: ConnectionStatus[] = [];
  const clock = new FakeClock();
  const t = new WsTransport({
    url: 'ws://h/bridge?token=t',
    openSocket: (url, h) => {
      const s = new FakeSocket(url, h);
      sockets.push(s);
      return s;
    },
    clock,
    backoff: { initialMs: 100, maxMs: 1000, jitter: [0.5, 1] },
    queueTimeoutMs,
    onProblem: (m) => problems.push(m),
  });
  t.onStatus((s) => statuses.push(s));
  t.start();
  const sock = (): FakeSocket => {
    const s = sockets.at(-1);
    if (!s) throw new Error('no socket');
    return s;
  };
  return { t, sockets, sock, clock, problems, statuses };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('WsTransport', () => {
  it('queues calls until the socket opens, then matches replies by id', async () => {
    const { t, sock } = setup();
    const p1 = t.call('session', {});
    const p2 = t.call('runs', {});
    expect(sock().sent).toEqual([]);
    sock().h.open();
    expect(t.status).toBe('open');
    const [c1, c2] = sock().sent as { id: number; method: string }[];
    expect(c1?.method).toBe('session');
    expect(c2?.method).toBe('runs');
    sock().reply({ type: 'result', id: c2!.id, result: { runs: [] } });
    sock().reply({ type: 'result', id: c1!.id, result: null });
    await expect(p1).resolves.toBeNull();
    await expect(p2).resolves.toEqual({ runs: [] });
  });

  it('turns an error frame into a WorkbenchError with the backend message', async () => {
    const { t, sock } = setup();
    sock().h.open();
    const p = t.call('connectRemote', { url: 'http://bad', adminToken: 'x' });
    sock().reply({
      type: 'error',
      id: sock().lastCall().id,
      error: { type: 'workbench', code: 'unreachable', message: 'cannot reach http://bad: ECONNREFUSED' },
    });
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkbenchError);
    expect(err).toMatchObject({ code: 'unreachable', message: 'cannot reach http://bad: ECONNREFUSED' });
  });

  it('routes event frames to subscribers and reports bad frames without crashing', () => {
    const { t, sock, problems } = setup();
    const got: unknown[] = [];
    const off = t.subscribe((e) => got.push(e));
    sock().h.open();
    sock().reply({ type: 'event', event: { type: 'session', session: null } });
    sock().h.message('garbage');
    sock().reply({ type: 'result', id: 4242, result: 1 });
    off();
    sock().reply({ type: 'event', event: { type: 'x' } });
    expect(got).toEqual([{ type: 'session', session: null }]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/not JSON/);
    expect(problems[1]).toMatch(/unknown call 4242/);
  });

  it('fails in-flight calls when the socket drops, reconnects with backoff, and serves again', async () => {
    const { t, sockets, sock, clock, statuses } = setup();
    sock().h.open();
    const inflight = t.call('metrics', { runId: 'r1' });
    sock().h.close(1006, '');
    await expect(inflight).rejects.toThrow(/metrics: the connection to the workbench was lost/);
    expect(t.status).toBe('reconnecting');
    expect(sockets).toHaveLength(1);
    clock.advance(99);
    expect(sockets).toHaveLength(1);
    clock.advance(1);
    expect(sockets).toHaveLength(2);
    // A second failure waits longer.
    sock().h.close(1006, '');
    clock.advance(199);
    expect(sockets).toHaveLength(2);
    clock.advance(1);
    expect(sockets).toHaveLength(3);
    const later = t.call('session', {});
    sock().h.open();
    sock().reply({ type: 'result', id: sock().lastCall().id, result: null });
    await expect(later).resolves.toBeNull();
    expect(statuses).toEqual(['open', 'reconnecting', 'open']);
  });

  it('ignores a stale socket after reconnecting', async () => {
    const { t, sockets, sock, clock } = setup();
    sock().h.open();
    const first = sockets[0]!;
    first.h.close(1006, '');
    clock.advance(100);
    sock().h.open();
    const p = t.call('session', {});
    first.h.message(JSON.stringify({ type: 'result', id: sock().lastCall().id, result: 'stale' }));
    sock().reply({ type: 'result', id: sock().lastCall().id, result: 'fresh' });
    await expect(p).resolves.toBe('fresh');
  });

  it('shows reconnecting after a failed first attempt too, and retries', () => {
    const { t, sockets, sock, clock, statuses } = setup();
    expect(t.status).toBe('connecting');
    sock().h.close(1006, '');
    expect(t.status).toBe('reconnecting');
    clock.advance(100);
    expect(sockets).toHaveLength(2);
    expect(t.status).toBe('reconnecting');
    sock().h.open();
    expect(statuses).toEqual(['reconnecting', 'open']);
  });

  it('fails a queued call after the queue timeout while disconnected', async () => {
    const { t, clock } = setup(500);
    let done = false;
    const settled = t
      .call('session', {})
      .catch((e: unknown) => e)
      .finally(() => (done = true));
    clock.advance(499);
    await flush();
    expect(done).toBe(false);
    clock.advance(1);
    const err = await settled;
    expect(err).toBeInstanceOf(WorkbenchError);
    expect(String(err)).toMatch(/session: no connection to the workbench/);
  });

  it('dispose closes the socket, fails everything, stops reconnecting', async () => {
    const { t, sock, clock, sockets } = setup();
    sock().h.open();
    const p = t.call('session', {});
    t.dispose();
    await expect(p).rejects.toThrow(/closed/);
    expect(sock().closed).toBe(true);
    expect(t.status).toBe('closed');
    clock.advance(10_000);
    expect(sockets).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
    await expect(t.call('runs', {})).rejects.toThrow(/closed/);
  });

  it('works under createWorkbenchClient: results are validated against the contract', async () => {
    const { t, sock } = setup();
    const api = createWorkbenchClient(t);
    sock().h.open();
    const good = api.runs({});
    sock().reply({ type: 'result', id: sock().lastCall().id, result: { runs: [] } });
    await expect(good).resolves.toEqual({ runs: [] });
    const bad = api.runs({});
    sock().reply({ type: 'result', id: sock().lastCall().id, result: { runs: 'nope' } });
    await expect(bad).rejects.toMatchObject({ code: 'bad_result' });
  });
});
