// The hold of claims during an update: released waiters resolve true, a timeout, a full hold or
// a fired signal resolve false, and nothing stays registered after either.
import { describe, expect, it } from 'vitest';
import { ClaimHold } from './claim-hold';

describe('ClaimHold', () => {
  it('wakes every waiter on release, and forgets them', async () => {
    const hold = new ClaimHold();
    const waits = [hold.wait(10_000), hold.wait(10_000)];
    expect(hold.held).toBe(2);
    hold.release();
    await expect(Promise.all(waits)).resolves.toEqual([true, true]);
    expect(hold.held).toBe(0);
  });

  it('gives up after its time, at once when full or when the time is already spent', async () => {
    const hold = new ClaimHold(1);
    const first = hold.wait(30);
    await expect(hold.wait(10_000)).resolves.toBe(false);
    await expect(hold.wait(0)).resolves.toBe(false);
    await expect(first).resolves.toBe(false);
    expect(hold.held).toBe(0);
    hold.release();
  });

  it('lets a waiter go when its signal fires (its client hung up)', async () => {
    const hold = new ClaimHold();
    const gone = new AbortController();
    const waiting = hold.wait(10_000, gone.signal);
    gone.abort();
    await expect(waiting).resolves.toBe(false);
    expect(hold.held).toBe(0);
    await expect(hold.wait(10_000, gone.signal)).resolves.toBe(false);
  });
});
