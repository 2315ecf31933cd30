import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeGroups, decideBatch, isZeroVariance, staleness, type BatchRule, type PoolItem } from './batching';

const item = (episodeId: string, taskId: string, reward: number): PoolItem => ({ episodeId, taskId, reward });
const none = { activeClients: [], agreed: [] };

describe('decideBatch', () => {
  it('C1 waits for `batch` episodes and takes the oldest', () => {
    const rule: BatchRule = { strategy: 'C1', batch: 3, groupSize: 2 };
    const two = [item('a', 't', 1), item('b', 'u', 0)];
    expect(decideBatch(two, rule, none)).toMatchObject({
      progress: { ready: false, current: 2, target: 3, unit: 'episodes' },
      selected: [],
    });
    const four = [...two, item('c', 't', 0), item('d', 'v', 1)];
    expect(decideBatch(four, rule, none)).toMatchObject({
      progress: { ready: true, current: 3 },
      selected: ['a', 'b', 'c'],
      drop: [],
    });
  });

  it('C2 counts tasks with a full group and trains exactly groupSize per task', () => {
    const rule: BatchRule = { strategy: 'C2', batch: 2, groupSize: 2 };
    const pool = [item('a1', 'a', 1), item('b1', 'b', 1), item('a2', 'a', 1), item('c1', 'c', 0), item('a3', 'a', 0)];
    const d = decideBatch(pool, rule, none);
    expect(d.progress).toMatchObject({ ready: false, current: 1, target: 2, unit: 'tasks' });
    expect(d.progress.detail).toMatch(/1\/2 tasks/);
    const d2 = decideBatch([...pool, item('b2', 'b', 0)], rule, none);
    expect(d2.progress.ready).toBe(true);
    expect(d2.selected).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  it('C3 drops complete zero-variance groups and does not count them', () => {
    const rule: BatchRule = { strategy: 'C3', batch: 1, groupSize: 2 };
    const flat = [item('a1', 'a', 1), item('a2', 'a', 1), item('b1', 'b', 0)];
    const d = decideBatch(flat, rule, none);
    expect(d).toMatchObject({ progress: { ready: false, current: 0 }, selected: [], drop: ['a1', 'a2'] });
    const d2 = decideBatch([...flat, item('b2', 'b', 1)], rule, none);
    expect(d2.selected).toEqual(['b1', 'b2']);
    expect(d2.drop).toEqual(['a1', 'a2']);
  });

  it('C4 updates when any active client agrees; C5 only when all do', () => {
    const pool = [item('a', 't', 1)];
    const c4: BatchRule = { strategy: 'C4', batch: 1, groupSize: 1 };
    const c5: BatchRule = { strategy: 'C5', batch: 1, groupSize: 1 };
    const sync = { activeClients: ['x', 'y'], agreed: ['x', 'gone'] };
    expect(decideBatch(pool, c4, sync)).toMatchObject({
      progress: { ready: true, current: 1, target: 1, unit: 'clients' },
      selected: ['a'],
    });
    expect(decideBatch(pool, c5, sync)).toMatchObject({
      progress: { ready: false, current: 1, target: 2 },
      selected: [],
    });
    expect(decideBatch(pool, c5, { activeClients: ['x', 'y'], agreed: ['y', 'x'] }).progress.ready).toBe(true);
    expect(decideBatch([], c4, sync).progress.ready).toBe(false);
    expect(decideBatch(pool, c5, { activeClients: [], agreed: [] }).progress.ready).toBe(false);
  });

  it('staleness counts versions behind, never negative', () => {
    expect(staleness(3, 5)).toBe(2);
    expect(staleness(5, 5)).toBe(0);
    expect(staleness(6, 5)).toBe(0);
  });
});

describe('decideBatch properties', () => {
  const poolArb = fc
    .array(fc.record({ taskId: fc.constantFrom('a', 'b', 'c', 'd', 'e'), reward: fc.constantFrom(0, 0.5, 1) }), {
      maxLength: 60,
    })
    .map((xs) => xs.map((x, i) => item(`e${i}`, x.taskId, x.reward)));
  const ruleArb = fc.record({
    strategy: fc.constantFrom('C1', 'C2', 'C3', 'C4', 'C5') as fc.Arbitrary<BatchRule['strategy']>,
    batch: fc.integer({ min: 1, max: 6 }),
    groupSize: fc.integer({ min: 1, max: 5 }),
  });
  const syncArb = fc.record({
    activeClients: fc.subarray(['x', 'y', 'z']),
    agreed: fc.subarray(['x', 'y', 'z', 'q']),
  });

  it('selects and drops disjoint subsets of the pool, without duplicates, only when ready', () => {
    fc.assert(
      fc.property(poolArb, ruleArb, syncArb, (pool, rule, sync) => {
        const d = decideBatch(pool, rule, sync);
        const inPool = new Set(pool.map((x) => x.episodeId));
        const sel = new Set(d.selected);
        expect(sel.size).toBe(d.selected.length);
        for (const id of [...d.selected, ...d.drop]) expect(inPool.has(id)).toBe(true);
        for (const id of d.drop) expect(sel.has(id)).toBe(false);
        expect(d.selected.length > 0).toBe(d.progress.ready);
        expect(d.progress.current).toBeLessThanOrEqual(d.progress.target);
        if (d.progress.ready) expect(d.progress.current).toBe(d.progress.target);
      }),
    );
  });

  it('C2/C3 train whole groups of one task; C3 never trains or keeps a flat complete group', () => {
    fc.assert(
      fc.property(poolArb, ruleArb, (pool, rule0) => {
        const rule = { ...rule0, strategy: rule0.strategy === 'C3' ? 'C3' : 'C2' } as BatchRule;
        const d = decideBatch(pool, rule, none);
        const byId = new Map(pool.map((x) => [x.episodeId, x]));
        const selected = d.selected.map((id) => byId.get(id)!);
        expect(selected.length % rule.groupSize).toBe(0);
        for (let i = 0; i < selected.length; i += rule.groupSize) {
          const group = selected.slice(i, i + rule.groupSize);
          expect(new Set(group.map((x) => x.taskId)).size).toBe(1);
          if (rule.strategy === 'C3') expect(isZeroVariance(group)).toBe(false);
        }
        if (d.progress.ready) expect(selected.length).toBe(rule.batch * rule.groupSize);
        const flatGroups = completeGroups(pool, rule.groupSize).filter((g) => isZeroVariance(g.items)).length;
        expect(d.drop.length).toBe(rule.strategy === 'C3' ? flatGroups * rule.groupSize : 0);
      }),
    );
  });

  it('C1 is ready exactly when the pool holds `batch` episodes and takes the oldest', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 1, max: 10 }), (pool, batch) => {
        const d = decideBatch(pool, { strategy: 'C1', batch, groupSize: 1 }, none);
        expect(d.progress.ready).toBe(pool.length >= batch);
        if (d.progress.ready) expect(d.selected).toEqual(pool.slice(0, batch).map((x) => x.episodeId));
      }),
    );
  });
});
