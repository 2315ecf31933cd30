import { describe, expect, it } from 'vitest';
import type { LogprobsSequence } from '../../../src/shared/engine-protocol';
import type { Teacher, TeacherScores } from './teacher';
import { PrefetchingTeacher, sequenceKey } from './teacher-prefetch';

/** A fake teacher: each token's logprob is −its id / 100; records every request, can be made to fail. */
class FakeTeacher implements Teacher {
  readonly url = 'http://fake-teacher';
  readonly topK = 0;
  readonly requests: number[][][] = [];
  failNext = 0;
  release: (() => void) | null = null;
  hold = false;

  async score(sequences: readonly LogprobsSequence[]): Promise<TeacherScores[]> {
    this.requests.push(sequences.map((s) => s.tokenIds));
    if (this.hold) await new Promise<void>((r) => (this.release = r));
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('teacher down');
    }
    return sequences.map((s) => ({ logprobs: s.tokenIds.map((t) => -t / 100) }));
  }
}

const seq = (...tokenIds: number[]): LogprobsSequence => ({ tokenIds });
const expected = (s: LogprobsSequence): TeacherScores => ({ logprobs: s.tokenIds.map((t) => -t / 100) });

describe('PrefetchingTeacher', () => {
  it('answers an update from what it scored ahead, asking the teacher only for the rest', async () => {
    const inner = new FakeTeacher();
    const t = new PrefetchingTeacher(inner);
    const [a, b, c] = [seq(1, 2, 3), seq(4, 5), seq(6)];
    t.prefetch([a, b]);
    t.prefetch([a]); // already held: not asked again
    expect(inner.requests).toEqual([[a.tokenIds, b.tokenIds]]);
    expect(await t.score([c, a, b])).toEqual([expected(c), expected(a), expected(b)]);
    expect(inner.requests).toEqual([[a.tokenIds, b.tokenIds], [c.tokenIds]]);
    expect(t.takeFigures()).toEqual({ sequences: 3, prefetched: 2 });
    expect(t.takeFigures()).toEqual({ sequences: 0, prefetched: 0 });
    expect(t.size).toBe(0); // consumed
  });

  it('waits for a prefetch still in flight instead of asking twice', async () => {
    const inner = new FakeTeacher();
    inner.hold = true;
    const t = new PrefetchingTeacher(inner);
    const a = seq(7, 8);
    t.prefetch([a]);
    const answer = t.score([a]);
    await new Promise((r) => setTimeout(r, 10));
    inner.release?.();
    expect(await answer).toEqual([expected(a)]);
    expect(inner.requests).toHaveLength(1);
    expect(t.takeFigures()).toEqual({ sequences: 1, prefetched: 1 });
  });

  it('asks again for a sequence whose prefetch failed; the update fails only if the teacher does', async () => {
    const inner = new FakeTeacher();
    const t = new PrefetchingTeacher(inner);
    const a = seq(9);
    inner.failNext = 1;
    t.prefetch([a]);
    expect(await t.score([a])).toEqual([expected(a)]);
    expect(inner.requests).toHaveLength(2);
    expect(t.takeFigures()).toEqual({ sequences: 1, prefetched: 0 });
    inner.failNext = 1;
    await expect(t.score([seq(10)])).rejects.toThrow(/teacher down/);
  });

  it('keeps at most maxEntries sequences, evicting the oldest', async () => {
    const inner = new FakeTeacher();
    const t = new PrefetchingTeacher(inner, 2);
    const [a, b, c] = [seq(1), seq(2), seq(3)];
    t.prefetch([a]);
    t.prefetch([b]);
    t.prefetch([c]);
    expect(t.size).toBe(2);
    await t.score([a, b, c]);
    expect(t.takeFigures()).toEqual({ sequences: 3, prefetched: 2 });
  });

  it('tells a prefix tree from a flat sequence of the same tokens', () => {
    const flat = seq(1, 2, 3);
    const tree = { tokenIds: [1, 2, 3], parents: [-1, 0, 0], positions: [0, 1, 1] };
    expect(sequenceKey(flat)).not.toBe(sequenceKey(tree));
    expect(sequenceKey(tree)).toBe(sequenceKey({ ...tree }));
  });
});
