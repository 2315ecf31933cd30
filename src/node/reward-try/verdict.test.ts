import { describe, expect, it } from 'vitest';
import { distribution, rewardVerdict, signalChange, type TriedEpisode } from './verdict';

const ep = (episodeId: string, taskId: string, oldReward: number, oldSuccess = oldReward > 0): TriedEpisode => ({
  episodeId,
  taskId,
  codeVersion: 'v1',
  oldReward,
  oldSuccess,
});

describe('rewardVerdict', () => {
  it('lists changed episodes by size of change, errors apart, and distributions over one range', () => {
    const v = rewardVerdict(
      [ep('a', 't1', 1), ep('b', 't1', 0), ep('c', 't2', 0.5), ep('d', 't2', 1)],
      [
        { ok: true, reward: 1, success: true },
        { ok: true, reward: 0.2 },
        { ok: true, reward: -0.5 },
        { ok: false, error: 'threw: boom' },
      ],
    );
    expect(v.changed.map((c) => [c.episodeId, c.delta])).toEqual([
      ['c', -1],
      ['b', 0.2],
    ]);
    expect(v.errors).toEqual([{ episodeId: 'd', error: 'threw: boom' }]);
    expect(v.ok).toBe(false);
    expect(v.scored).toBe(3);
    expect(v.old.count).toBe(3);
    expect(v.new.histogram[0]!.lo).toBe(-0.5);
    expect(v.new.histogram.reduce((n, b) => n + b.count, 0)).toBe(3);
  });

  it('counts a success flip with the same reward as a change', () => {
    const v = rewardVerdict([ep('a', 't', 1, true)], [{ ok: true, reward: 1, success: false }]);
    expect(v.changed).toHaveLength(1);
    expect(v.changed[0]!.delta).toBe(0);
  });

  it('finds groups gaining and losing signal, scoped to the last update when it is among the tried', () => {
    const rows = [
      { taskId: 'same', oldReward: 1, newReward: 1 },
      { taskId: 'same', oldReward: 1, newReward: 0 },
      { taskId: 'diff', oldReward: 1, newReward: 0 },
      { taskId: 'diff', oldReward: 0, newReward: 0 },
      { taskId: 'alone', oldReward: 0, newReward: 1 },
    ];
    expect(signalChange(rows)).toEqual({ considered: 2, gainSignal: ['same'], loseSignal: ['diff'] });
    const episodes = [ep('a', 'same', 1), ep('b', 'same', 1), ep('c', 'diff', 1), ep('d', 'diff', 0)];
    const outcomes = [1, 0, 0, 0].map((reward) => ({ ok: true as const, reward }));
    const v = rewardVerdict(episodes, outcomes, new Set(['c', 'd']));
    expect(v.groups).toEqual({ considered: 1, gainSignal: [], loseSignal: ['diff'], scope: 'last_update' });
    expect(rewardVerdict(episodes, outcomes, new Set(['zz'])).groups.scope).toBe('tried');
  });

  it('describes an empty distribution', () => {
    expect(distribution([], 0, 1)).toEqual({ count: 0, mean: null, std: null, min: null, max: null, histogram: [] });
  });
});
