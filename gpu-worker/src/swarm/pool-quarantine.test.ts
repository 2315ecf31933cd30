import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TimelineSchema, type Timeline } from '../../../src/shared/timeline/index';
import { DurablePool, type PoolEntry } from './pool';

function call(episodeId: string): Timeline {
  return TimelineSchema.parse({
    id: `${episodeId}/0`,
    episodeId,
    callIndex: 0,
    messages: [{ role: 'user', content: 'x' }],
    promptIds: [1, 2, 3],
    promptSpans: [
      { messageIndex: 0, role: 'user', start: 0, end: 2 },
      { messageIndex: -2, role: 'generation_prompt', start: 2, end: 3 },
    ],
    outputIds: [4, 5],
    outputLogprobs: [-1, -2],
    finishReason: 'stop',
    output: { role: 'assistant', content: 'y' },
    weightVersion: 0,
    createdAt: 1,
  });
}

const entry = (id: string, codeVersion?: string): Omit<PoolEntry, 'seq'> => ({
  episodeId: id,
  clientId: 'c',
  taskId: 't',
  reward: 1,
  endedAt: 5,
  ...(codeVersion !== undefined ? { codeVersion } : {}),
  calls: [call(id)],
});

describe('DurablePool quarantine', () => {
  const dirs: string[] = [];
  const path = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'aj-poolq-'));
    dirs.push(d);
    return join(d, 'pool.jsonl');
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

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
