// Waiters: a wake resolves every waiter, a timeout, a full set or a fired signal end a wait with
// their own outcome, and nothing stays registered after any of them.
import { describe, expect, it } from 'vitest';
import { Waiters } from './waiters';

describe('Waiters', () => {
  it('wakes every waiter, and forgets them', async () => {
    const waiters = new Waiters();
    const waits = [waiters.wait(10_000), waiters.wait(10_000)];
    expect(waiters.size).toBe(2);
    waiters.wake();
    await expect(Promise.all(waits)).resolves.toEqual(['woken', 'woken']);
    expect(waiters.size).toBe(0);
  });

  it('gives up after its time, at once when full or when the time is already spent', async () => {
    const waiters = new Waiters(1);
    const first = waiters.wait(30);
    await expect(waiters.wait(10_000)).resolves.toBe('full');
    await expect(waiters.wait(0)).resolves.toBe('timeout');
    await expect(first).resolves.toBe('timeout');
    expect(waiters.size).toBe(0);
    waiters.wake();
  });

  it('lets a waiter go when its signal fires (its client hung up)', async () => {
    const waiters = new Waiters();
    const gone = new AbortController();
    const waiting = waiters.wait(10_000, gone.signal);
    gone.abort();
    await expect(waiting).resolves.toBe('aborted');
    expect(waiters.size).toBe(0);
    await expect(waiters.wait(10_000, gone.signal)).resolves.toBe('aborted');
  });
});
