import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TimelineSchema, type Timeline } from '../../../src/shared/timeline/index';
import { DurablePool, oldestWeightVersion, type PoolEntry } from './pool';

function call(episodeId: string, weightVersion = 0): Timeline {
  return TimelineSchema.parse({
    id: `${episodeId}/0`, episodeId, callIndex: 0, messages: [{ role: 'user', content: 'x' }],
    promptIds: [1, 2, 3],
    promptSpans: [{ messageIndex: 0, role: 'user', start: 0, end: 2 }, { messageIndex: -2, role: 'generation_prompt', start: 2, end: 3 }],
    outputIds: [4, 5], outputLogprobs: [-1, -2], finishReason: 'stop', output: { role: 'assistant', content: 'y' }, weightVersion, createdAt: 1,
  });
}

const entry = (id: string, taskId = 't', reward = 1): Omit<PoolEntry, 'seq'> => ({ episodeId: id, clientId: 'c', taskId, reward, endedAt: 5, calls: [call(id)] });

describe('DurablePool', () => {
  const dirs: string[] = [];
  const path = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'aj-pool-'));
    dirs.push(d);
    return join(d, 'pool.jsonl');
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('keeps added entries across a reopen, in arrival order', async () => {
    const p = path();
    const pool = await DurablePool.open(p, 0);
    await pool.add(entry('a'));
    await pool.add(entry('b'));
    await pool.add(entry('c'));
    // No dispose: as after kill -9, only what was fsynced counts.
    const again = await DurablePool.open(p, 0);
    expect(again.list().map((e) => e.episodeId)).toEqual(['a', 'b', 'c']);
    expect(again.list()[0]!.calls[0]!.outputIds).toEqual([4, 5]);
    await again.add(entry('d'));
    expect(again.list().at(-1)!.seq).toBe(3);
    await Promise.all([pool.dispose(), again.dispose()]);
  });

  it('undoes removals made after the checkpoint step on reopen, applies earlier ones', async () => {
    const p = path();
    const pool = await DurablePool.open(p, 0);
    for (const id of ['a', 'b', 'c', 'd']) await pool.add(entry(id));
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
    for (const id of ['a', 'b', 'c']) await pool.add(entry(id));
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
    await pool.add(entry('a'));
    await pool.dispose();
    appendFileSync(p, '{"op":"add","entry":{"seq":1,"episodeId":"b"');
    const logs: string[] = [];
    const again = await DurablePool.open(p, 0, (m) => logs.push(m));
    expect(again.list().map((e) => e.episodeId)).toEqual(['a']);
    expect(logs[0]).toMatch(/incomplete/);
    await again.dispose();
  });

  it('knows the oldest weight version of an episode', () => {
    expect(oldestWeightVersion([call('a', 3), call('a', 1)])).toBe(1);
  });
});
