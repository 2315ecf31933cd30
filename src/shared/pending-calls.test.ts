import { describe, expect, it } from 'vitest';
import { PendingCalls, type Timers } from './pending-calls';

/** A manual clock (a fake): timers run only when the test advances it. */
class FakeTimers implements Timers {
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
  advance(ms: number): void {
    this.now += ms;
    const due = this.timers.filter((t) => t.at <= this.now).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => t.at > this.now);
    for (const t of due) t.fn();
  }
  get count(): number {
    return this.timers.length;
  }
}

describe('PendingCalls', () => {
  it('gives distinct ids, keeps each call its data and settles the right call', async () => {
    const p = new PendingCalls<string>();
    const a = p.add('session');
    const b = p.add('runs');
    expect(a.id).not.toBe(b.id);
    expect(p.get(b.id)).toBe('runs');
    expect(p.ids()).toEqual([a.id, b.id]);
    expect(p.resolve(b.id, 'B')).toBe(true);
    expect(p.resolve(a.id, 'A')).toBe(true);
    await expect(a.promise).resolves.toBe('A');
    await expect(b.promise).resolves.toBe('B');
    expect(p.size).toBe(0);
  });

  it('ignores unknown and duplicate answers', async () => {
    const p = new PendingCalls<string>();
    const a = p.add('session');
    expect(p.resolve(999, 'x')).toBe(false);
    expect(p.resolve(a.id, 1)).toBe(true);
    expect(p.resolve(a.id, 2)).toBe(false);
    expect(p.reject(a.id, new Error('late'))).toBe(false);
    await expect(a.promise).resolves.toBe(1);
  });

  it('rejects one call with the error given', async () => {
    const p = new PendingCalls<string>();
    const a = p.add('connectRemote');
    expect(p.reject(a.id, new Error('cannot reach http://nope'))).toBe(true);
    await expect(a.promise).rejects.toThrow('cannot reach http://nope');
  });

  it('fails all calls with an error made per call, and after dispose every new one at once', async () => {
    const p = new PendingCalls<string>();
    const a = p.add('session');
    const b = p.add('clients');
    expect(p.rejectAll((method) => new Error(`${method}: lost`))).toBe(2);
    await expect(a.promise).rejects.toThrow('session: lost');
    await expect(b.promise).rejects.toThrow('clients: lost');
    expect(p.size).toBe(0);
    const c = p.add('late');
    p.dispose(new Error('closed'));
    await expect(c.promise).rejects.toThrow('closed');
    await expect(p.add('after').promise).rejects.toThrow('closed');
    expect(p.size).toBe(0);
  });

  it('fails a call past its deadline with the expired error, and a late answer finds nothing', async () => {
    const timers = new FakeTimers();
    const expired: number[] = [];
    const p = new PendingCalls<string>({
      timers,
      expired: (id, method, ms) => {
        expired.push(id);
        return new Error(`${method} got no answer within ${ms} ms`);
      },
    });
    const slow = p.add('render', 100);
    const fast = p.add('info', 100);
    const open = p.add('train_step');
    expect(p.resolve(fast.id, 'ok')).toBe(true);
    expect(timers.count).toBe(1); // settled calls release their timer; no deadline, no timer
    timers.advance(99);
    expect(p.has(slow.id)).toBe(true);
    timers.advance(1);
    await expect(slow.promise).rejects.toThrow('render got no answer within 100 ms');
    expect(expired).toEqual([slow.id]);
    expect(p.resolve(slow.id, 'late')).toBe(false);
    expect(p.ids()).toEqual([open.id]);
    await expect(fast.promise).resolves.toBe('ok');
  });

  it('has a plain default error past a deadline', async () => {
    const timers = new FakeTimers();
    const p = new PendingCalls<null>({ timers });
    const a = p.add(null, 5);
    timers.advance(5);
    await expect(a.promise).rejects.toThrow(`call ${a.id} got no answer within 5 ms`);
  });
});
