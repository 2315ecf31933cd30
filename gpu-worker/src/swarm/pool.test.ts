import { appendFileSync, copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SwarmError } from '../../../src/shared/swarm-error';
import { FakeFaultyFs } from '../testing/fake-faulty-fs';
import { poolCall, poolEntry, poolPaths } from '../testing/pool-entries';
import { DurablePool, oldestWeightVersion } from './pool';

describe('DurablePool', () => {
  const { path, cleanup } = poolPaths('aj-pool-');
  afterEach(cleanup);

  it('keeps added entries across a reopen, in arrival order', async () => {
    const p = path();
    const pool = await DurablePool.open(p, 0);
    await pool.add(poolEntry('a'));
    await pool.add(poolEntry('b'));
    await pool.add(poolEntry('c'));
    // No dispose: as after kill -9, only what was fsynced counts.
    const again = await DurablePool.open(p, 0);
    expect(again.list().map((e) => e.episodeId)).toEqual(['a', 'b', 'c']);
    expect(again.list()[0]!.calls[0]!.outputIds).toEqual([4, 5]);
    await again.add(poolEntry('d'));
    expect(again.list().at(-1)!.seq).toBe(3);
    await Promise.all([pool.dispose(), again.dispose()]);
  });

  it('undoes removals made after the checkpoint step on reopen, applies earlier ones', async () => {
    const p = path();
    const pool = await DurablePool.open(p, 0);
    for (const id of ['a', 'b', 'c', 'd']) await pool.add(poolEntry(id));
    await pool.remove(['a'], 'trained', 1);
    await pool.remove(['b', 'zz'], 'trained', 2);
    await pool.dispose();
    const copy = `${p}.copy`;
    copyFileSync(p, copy);
    const at2 = await DurablePool.open(copy, 2);
    expect(at2.list().map((e) => e.episodeId)).toEqual(['c', 'd']);
    const at1 = await DurablePool.open(p, 1);
    expect(at1.list().map((e) => e.episodeId)).toEqual(['b', 'c', 'd']);
    await Promise.all([at1.dispose(), at2.dispose()]);
  });

  it('rolls back in memory and compacts to the current entries', async () => {
    const p = path();
    const pool = await DurablePool.open(p, 0);
    for (const id of ['a', 'b', 'c']) await pool.add(poolEntry(id));
    await pool.remove(['a', 'b'], 'trained', 1);
    expect(pool.rollback(0).map((e) => e.episodeId)).toEqual(['a', 'b']);
    expect(pool.list().map((e) => e.episodeId)).toEqual(['a', 'b', 'c']);
    await pool.remove(['c'], 'zero_variance', 1);
    await pool.compact();
    expect(pool.rollback(0)).toEqual([]);
    expect(readFileSync(p, 'utf8').trim().split('\n')).toHaveLength(2);
    await pool.dispose();
  });

  it('ignores a torn last line (an end that was never answered)', async () => {
    const p = path();
    const pool = await DurablePool.open(p, 0);
    await pool.add(poolEntry('a'));
    await pool.dispose();
    appendFileSync(p, '{"op":"add","entry":{"seq":1,"episodeId":"b"');
    const logs: string[] = [];
    const again = await DurablePool.open(p, 0, (m) => logs.push(m));
    expect(again.list().map((e) => e.episodeId)).toEqual(['a']);
    expect(logs[0]).toMatch(/incomplete/);
    await again.dispose();
  });

  it('knows the oldest weight version of an episode', () => {
    expect(oldestWeightVersion([poolCall('a', 3), poolCall('a', 1)])).toBe(1);
  });

  describe('under I/O failure (fake file system)', () => {
    const siblings = (p: string): string[] => readdirSync(dirname(p)).filter((n) => n !== basename(p));

    it('admits an entry only once its line is on disk; a failed append is a 503 and leaves the pool unchanged', async () => {
      const p = path();
      const fs = new FakeFaultyFs();
      const problems: string[] = [];
      const pool = await DurablePool.open(p, 0, () => undefined, { fs, now: () => 42 });
      pool.onProblem((m) => problems.push(m));
      await pool.add(poolEntry('a'));
      fs.fail('append', 'ENOSPC');
      const err = await pool.add(poolEntry('b')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SwarmError);
      expect(err).toMatchObject({ status: 503, code: 'journal_unavailable', retryAfterS: 5 });
      expect((err as Error).message).toMatch(/ENOSPC/);
      expect(pool.has('b')).toBe(false);
      expect(pool.size).toBe(1);
      expect(pool.health).toMatchObject({ ok: false, lastErrorAt: 42 });
      expect(pool.health.lastError).toMatch(/appending episode b failed: ENOSPC/);
      expect(problems).toHaveLength(1);
      fs.fail('sync', 'EIO');
      await expect(pool.add(poolEntry('c'))).rejects.toMatchObject({ status: 503 });
      expect(pool.has('c')).toBe(false);
      // The disk recovers: the retried end goes through, after the half-written line.
      await pool.add(poolEntry('b'));
      expect(pool.health.ok).toBe(true);
      expect(pool.list().map((e) => e.episodeId)).toEqual(['a', 'b']);
      const logs: string[] = [];
      const again = await DurablePool.open(p, 0, (m) => logs.push(m));
      // 'c' reached the page cache before its fsync failed: it is replayed (its client was told to retry).
      expect(again.list().map((e) => e.episodeId)).toEqual(['a', 'c', 'b']);
      expect(logs.join('\n')).toMatch(/unreadable and skipped/);
      await Promise.all([pool.dispose(), again.dispose()]);
    });

    it('a failed compaction keeps the old journal open and intact and leaves no temporary file', async () => {
      const p = path();
      const fs = new FakeFaultyFs();
      const pool = await DurablePool.open(p, 0, () => undefined, { fs });
      for (const id of ['a', 'b', 'c']) await pool.add(poolEntry(id));
      await pool.remove(['a'], 'trained', 1);
      const before = readFileSync(p, 'utf8');
      for (const op of ['rename', 'create', 'append', 'sync'] as const) {
        fs.fail(op, 'EIO');
        await expect(pool.compact()).rejects.toMatchObject({ status: 503, code: 'journal_unavailable' });
        expect(readFileSync(p, 'utf8')).toBe(before);
        expect(siblings(p)).toEqual([]);
        expect(pool.health.ok).toBe(false);
      }
      // The old journal still takes appends, and rollback still knows the uncompacted removal.
      await pool.add(poolEntry('d'));
      expect(readFileSync(p, 'utf8').startsWith(before)).toBe(true);
      expect(pool.rollback(0).map((e) => e.episodeId)).toEqual(['a']);
      await pool.compact();
      expect(pool.health.ok).toBe(true);
      expect(readFileSync(p, 'utf8').trim().split('\n')).toHaveLength(4);
      await pool.add(poolEntry('e'));
      const again = await DurablePool.open(p, 0);
      expect(again.list().map((e) => e.episodeId)).toEqual(['a', 'b', 'c', 'd', 'e']);
      await Promise.all([pool.dispose(), again.dispose()]);
    });

    it('a failed removal is reported, not thrown: the trained entries stay out of the pool', async () => {
      const p = path();
      const fs = new FakeFaultyFs();
      const pool = await DurablePool.open(p, 0, () => undefined, { fs });
      for (const id of ['a', 'b']) await pool.add(poolEntry(id));
      fs.fail('append', 'ENOSPC');
      expect((await pool.remove(['a'], 'trained', 1)).map((e) => e.episodeId)).toEqual(['a']);
      expect(pool.list().map((e) => e.episodeId)).toEqual(['b']);
      expect(pool.health.lastError).toMatch(/removal of 1 episode/);
      await pool.dispose();
    });

    it('refuses to start on a journal it cannot rewrite, leaving it intact', async () => {
      const p = path();
      const pool = await DurablePool.open(p, 0);
      await pool.add(poolEntry('a'));
      await pool.dispose();
      const before = readFileSync(p, 'utf8');
      await expect(
        DurablePool.open(p, 0, () => undefined, { fs: new FakeFaultyFs().fail('rename', 'EACCES') }),
      ).rejects.toThrow(/could not be rewritten at start \(it is intact\).*EACCES/);
      expect(readFileSync(p, 'utf8')).toBe(before);
      expect(siblings(p)).toEqual([]);
    });
  });
});
