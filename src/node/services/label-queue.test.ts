import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pairKey } from '../store/rewards-types';
import { proposeLabels, uncertainty, type QueueCandidate, type QueueRequest } from './label-queue';

const req = (candidates: QueueCandidate[], over: Partial<QueueRequest> = {}): QueueRequest => ({
  candidates,
  labelledPoints: new Set(),
  labelledPairs: new Set(),
  mode: 'points',
  center: 0,
  limit: 10,
  pairKey,
  ...over,
});

describe('proposeLabels', () => {
  it('proposes the points the model is least sure about, skipping labelled ones', () => {
    const c = [
      { episodeId: 'sure-good', taskId: 't1', score: 6 },
      { episodeId: 'coin', taskId: 't1', score: 0.1 },
      { episodeId: 'sure-bad', taskId: 't2', score: -5 },
      { episodeId: 'labelled', taskId: 't2', score: 0 },
      { episodeId: 'unsure', taskId: 't3', score: -1 },
    ];
    const items = proposeLabels(req(c, { labelledPoints: new Set(['labelled']), limit: 3 }));
    expect(items.map((i) => i.episodeId)).toEqual(['coin', 'unsure', 'sure-bad']);
    expect(items[0]!.uncertainty).toBeGreaterThan(0.9);
    // A pairwise model's scores are judged around its center.
    expect(proposeLabels(req(c, { center: 6, limit: 1 })).map((i) => i.episodeId)).toEqual(['sure-good']);
  });

  it('top: the highest-scored unlabelled points first (the audit for reward hacking), unscored last', () => {
    const c = [
      { episodeId: 'mid', taskId: 't1', score: 0.5 },
      { episodeId: 'high', taskId: 't1', score: 6 },
      { episodeId: 'none', taskId: 't2', score: null },
      { episodeId: 'labelled', taskId: 't2', score: 9 },
      { episodeId: 'high-too', taskId: 't3', score: 6 },
      { episodeId: 'low', taskId: 't3', score: -4 },
    ];
    const items = proposeLabels(req(c, { mode: 'top', labelledPoints: new Set(['labelled']) }));
    expect(items.map((i) => i.episodeId)).toEqual(['high', 'high-too', 'mid', 'low', 'none']);
    expect(items.every((i) => i.kind === 'point')).toBe(true);
    expect(proposeLabels(req(c, { mode: 'top', limit: 1 })).map((i) => i.episodeId)).toEqual(['labelled']);
  });

  it('without scores, keeps the newest first', () => {
    const c = ['a', 'b', 'c'].map((id) => ({ episodeId: id, taskId: 't', score: null }));
    expect(proposeLabels(req(c)).map((i) => [i.episodeId, i.uncertainty])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ]);
  });

  it('proposes pairs within a task group with the closest scores, each episode once', () => {
    const c = [
      { episodeId: 'a1', taskId: 'A', score: 1.0 },
      { episodeId: 'a2', taskId: 'A', score: 1.05 },
      { episodeId: 'a3', taskId: 'A', score: 4 },
      { episodeId: 'b1', taskId: 'B', score: -2 },
      { episodeId: 'b2', taskId: 'B', score: 2 },
      { episodeId: 'lone', taskId: 'C', score: 0 },
      { episodeId: 'none', taskId: null, score: 0 },
    ];
    const items = proposeLabels(req(c, { mode: 'pairs' }));
    expect(items.map((i) => (i.kind === 'pair' ? [i.episodeId, i.otherEpisodeId] : []))).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
    const skip = proposeLabels(req(c, { mode: 'pairs', labelledPairs: new Set([pairKey('a2', 'a1')]) }));
    expect(skip[0]).toMatchObject({ episodeId: 'a2', otherEpisodeId: 'a3' });
  });

  it('never repeats an episode and never exceeds the limit (property)', () => {
    const cand = fc.array(
      fc.record({
        episodeId: fc.string({ minLength: 1, maxLength: 3 }),
        taskId: fc.constantFrom('A', 'B', null),
        score: fc.option(fc.double({ min: -10, max: 10, noNaN: true })),
      }),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(
        cand,
        fc.constantFrom<'points' | 'pairs' | 'top'>('points', 'pairs', 'top'),
        fc.integer({ min: 1, max: 8 }),
        (raw, mode, limit) => {
          const seen = new Set<string>();
          const candidates = raw.filter((c) => (seen.has(c.episodeId) ? false : (seen.add(c.episodeId), true)));
          const items = proposeLabels(req(candidates, { mode, limit }));
          const ids = items.flatMap((i) => (i.kind === 'pair' ? [i.episodeId, i.otherEpisodeId] : [i.episodeId]));
          expect(new Set(ids).size).toBe(ids.length);
          expect(items.length).toBeLessThanOrEqual(limit);
          for (const i of items) expect(i.uncertainty).toBeGreaterThanOrEqual(0);
        },
      ),
    );
    expect(uncertainty(0.5)).toBe(1);
    expect(uncertainty(1)).toBe(0);
  });
});
