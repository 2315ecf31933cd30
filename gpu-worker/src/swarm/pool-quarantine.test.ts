import { afterEach, describe, expect, it } from 'vitest';
import { poolEntry, poolPaths } from '../testing/pool-entries';
import { DurablePool } from './pool';

const entry = (id: string, codeVersion?: string) => poolEntry(id, { codeVersion });

describe('DurablePool quarantine', () => {
  const { path, cleanup } = poolPaths('aj-poolq-');
  afterEach(cleanup);

  it('holds one version out of the pool, across a reopen and a compaction, and releases it', async () => {
    const p = path();
    const pool = await DurablePool.open(p, 0);
    await pool.add(entry('a', 'v1'));
    await pool.add(entry('b', 'v2'));
    await pool.add(entry('c', 'v1'));
    await pool.add(entry('d'));
    const held = await pool.quarantine('v1');
    expect(held.map((e) => e.episodeId)).toEqual(['a', 'c']);
    expect(pool.list().map((e) => e.episodeId)).toEqual(['b', 'd']);
    expect(await pool.quarantine('v1')).toEqual([]);
    expect(await pool.quarantine('nope')).toEqual([]);

    // As after kill -9: replayed from the journal.
    const again = await DurablePool.open(p, 0);
    expect(again.list().map((e) => e.episodeId)).toEqual(['b', 'd']);
    expect(again.quarantined()).toEqual([expect.objectContaining({ codeVersion: 'v1', episodeIds: ['a', 'c'] })]);
    // The start compacts the journal; a third open reads the compacted form.
    const third = await DurablePool.open(p, 0);
    expect(third.quarantined()[0]!.episodeIds).toEqual(['a', 'c']);

    const back = await third.release('v1');
    expect(back.map((e) => e.episodeId)).toEqual(['a', 'c']);
    expect(third.list().map((e) => e.episodeId)).toEqual(['a', 'b', 'c', 'd']);
    expect(third.quarantined()).toEqual([]);
    const fourth = await DurablePool.open(p, 0);
    expect(fourth.list().map((e) => e.episodeId)).toEqual(['a', 'b', 'c', 'd']);
    await Promise.all([pool.dispose(), again.dispose(), third.dispose(), fourth.dispose()]);
  });
});
