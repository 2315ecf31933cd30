// taskGroupOf: which episodes the merged-samples preview of an episode builds its samples with —
// those an update would train it with.
import { describe, expect, it } from 'vitest';
import type { Episode } from './episodes';
import type { PoolEntry } from './pool';
import { taskGroupOf } from './swarm-reads';

const entry = (episodeId: string, taskId: string, seq: number): PoolEntry => ({
  seq,
  episodeId,
  clientId: 'c',
  taskId,
  reward: seq,
  endedAt: seq,
  calls: [],
});

const episode = (id: string, over: Partial<Episode> = {}): Episode => ({
  id,
  clientId: 'c',
  kind: 'train',
  taskId: 'a',
  timeoutMs: 1000,
  createdAt: 0,
  lastActivityAt: 0,
  status: 'open',
  calls: [],
  inFlight: 0,
  nextCallIndex: 0,
  completionTokens: 0,
  malformedToolCalls: 0,
  idleWaiters: [],
  ...over,
});

const pool = [entry('a1', 'a', 0), entry('b1', 'b', 1), entry('a2', 'a', 2), entry('a3', 'a', 3)];
const ids = (g: { episodeId: string }[]): string[] => g.map((e) => e.episodeId);
const ended = { status: 'ended' as const, result: { taskId: 'a', reward: 1 } };

describe('taskGroupOf', () => {
  it('takes a pooled episode with its task, in pool order; the group strategies only its group', () => {
    expect(ids(taskGroupOf(episode('a2', ended), pool, { strategy: 'C1', groupSize: 2 }))).toEqual(['a1', 'a2', 'a3']);
    expect(ids(taskGroupOf(episode('a2', ended), pool, { strategy: 'C2', groupSize: 2 }))).toEqual(['a1', 'a2']);
    expect(ids(taskGroupOf(episode('a3', ended), pool, { strategy: 'C3', groupSize: 2 }))).toEqual(['a3']);
  });

  it('puts an open train episode last in its task, and anything else alone', () => {
    expect(ids(taskGroupOf(episode('a4'), pool, { strategy: 'C2', groupSize: 2 }))).toEqual(['a3', 'a4']);
    expect(ids(taskGroupOf(episode('x', { kind: 'eval' }), pool, { strategy: 'C1', groupSize: 2 }))).toEqual(['x']);
    const trainedAndGone = episode('a0', ended);
    expect(ids(taskGroupOf(trainedAndGone, pool, { strategy: 'C1', groupSize: 2 }))).toEqual(['a0']);
    const { taskId: _none, ...noTask } = episode('y');
    expect(ids(taskGroupOf(noTask, pool, { strategy: 'C1', groupSize: 2 }))).toEqual(['y']);
  });
});
