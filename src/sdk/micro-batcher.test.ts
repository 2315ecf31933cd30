import { describe, expect, it } from 'vitest';
import { MicroBatcher } from './micro-batcher';

describe('MicroBatcher', () => {
  it('runs same-tick requests as one batch, capped at maxBatch, in order', async () => {
    const batches: number[][] = [];
    const b = new MicroBatcher<number, number>(async (xs) => {
      batches.push(xs);
      return xs.map((x) => x * 10);
    }, 4);
    const out = await Promise.all([1, 2, 3, 4, 5, 6].map((x) => b.submit(x)));
    expect(out).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([
      [1, 2, 3, 4],
      [5, 6],
    ]);
  });

  it('gathers the requests made while a batch runs into the next batch', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const b = new MicroBatcher<number, number>(async (xs) => {
      batches.push(xs);
      if (batches.length === 1) await gate;
      return xs;
    }, 16);
    const first = b.submit(1);
    await new Promise((r) => setImmediate(r));
    const later = [b.submit(2), b.submit(3)];
    await new Promise((r) => setTimeout(r, 5));
    const laterStill = b.submit(4);
    release();
    expect(await Promise.all([first, ...later, laterStill])).toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every request of a failed batch and keeps serving', async () => {
    let calls = 0;
    const b = new MicroBatcher<number, number>(async (xs) => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return xs;
    }, 8);
    const failed = await Promise.allSettled([b.submit(1), b.submit(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await b.submit(3)).toBe(3);
    b.close();
    await expect(b.submit(4)).rejects.toThrow('closed');
    expect(() => new MicroBatcher(async (x) => x, 0)).toThrow('positive integer');
  });
});
