import { describe, expect, it } from 'vitest';
import { RelabelLoop, roundDue } from './relabel-loop';

describe('roundDue', () => {
  it('is due every `every` updates after the last round', () => {
    expect(roundDue(9, 0, 10)).toBe(false);
    expect(roundDue(10, 0, 10)).toBe(true);
    expect(roundDue(19, 10, 10)).toBe(false);
    expect(roundDue(23, 10, 10)).toBe(true);
    expect(roundDue(100, 0, 0)).toBe(false);
  });
});

describe('RelabelLoop', () => {
  it('runs one round at a time, labels then retrains, and records each round', async () => {
    const calls: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let version = 1;
    const loop = new RelabelLoop({
      every: 5,
      perRound: 8,
      label: async (round, limit) => {
        calls.push(`label ${round} ${limit}`);
        if (round === 1) await gate;
        return limit - 1;
      },
      retrain: async (round) => {
        calls.push(`retrain ${round}`);
        return ++version;
      },
      log: () => undefined,
    });
    loop.onStep(4); // not due
    loop.onStep(5); // round 1 starts and waits at the gate
    loop.onStep(10); // due, but round 1 is running: skipped
    expect(calls).toEqual(['label 1 8']);
    release();
    await loop.idle();
    await loop.stop();
    loop.onStep(50); // stopped: no new rounds
    expect(calls).toEqual(['label 1 8', 'retrain 1']);
    expect(loop.rounds).toMatchObject([{ round: 1, atUpdate: 5, labels: 7, version: 2 }]);
    expect(loop.labels).toBe(7);
  });

  it('skips the retraining when a round got no labels, and records a failed round without stopping', async () => {
    let retrains = 0;
    const loop = new RelabelLoop({
      every: 1,
      perRound: 4,
      label: async (round) => {
        if (round === 2) throw new Error('queue unavailable');
        return round === 1 ? 0 : 4;
      },
      retrain: async () => ++retrains,
      log: () => undefined,
    });
    for (const u of [1, 2, 3]) {
      loop.onStep(u);
      await loop.idle();
    }
    expect(loop.rounds.map((r) => [r.labels, r.version, r.error ?? null])).toEqual([
      [0, null, null],
      [0, null, 'queue unavailable'],
      [4, 1, null],
    ]);
  });

  it('refuses a non-positive schedule', () => {
    const o = { label: async () => 0, retrain: async () => 0, log: () => undefined };
    expect(() => new RelabelLoop({ ...o, every: 0, perRound: 4 })).toThrow('must be positive');
  });
});
