import { describe, expect, it } from 'vitest';
import { evalPoint, marker, stepPoint } from '../test-fixtures';
import {
  batchFill,
  compareRows,
  downsample,
  evalRows,
  fmt,
  markerLines,
  mergeRows,
  rewardRows,
  shortVersion,
  stepTimeRows,
} from './series';

describe('downsample', () => {
  it('returns short lists unchanged and thins long ones keeping both ends', () => {
    expect(downsample([1, 2, 3], 5)).toEqual([1, 2, 3]);
    const long = Array.from({ length: 10_001 }, (_, i) => i);
    const d = downsample(long, 101);
    expect(d).toHaveLength(101);
    expect(d[0]).toBe(0);
    expect(d.at(-1)).toBe(10_000);
    expect(d[50]).toBe(5000);
  });
});

describe('chart rows', () => {
  it('reward rows carry mean, an ordered band and success', () => {
    const rows = rewardRows([
      stepPoint(1, { rewardMean: 0.5, rewardMin: 1, rewardMax: 0, successRate: 0.25 }),
      stepPoint(2, { successRate: null }),
    ]);
    expect(rows[0]).toEqual({ step: 1, mean: 0.5, band: [0, 1], success: 0.25 });
    expect(rows[1]?.success).toBeNull();
  });
  it('eval rows are ordered by weight version', () => {
    expect(evalRows([evalPoint(3, 0.9), evalPoint(1, null)]).map((r) => [r.weightVersion, r.success])).toEqual([
      [1, null],
      [3, 0.9],
    ]);
  });
  it('pools consecutive eval versions with few episodes, episode-weighted', () => {
    const few = (v: number, episodes: number, successRate: number) => ({
      ...evalPoint(v, successRate),
      episodes,
      rewardMean: successRate,
    });
    const rows = evalRows([few(5, 1, 1), few(4, 3, 0), few(6, 4, 0.5), few(7, 2, 1)], 8);
    expect(rows).toEqual([
      { weightVersion: 6, success: 0.375, reward: 0.375, episodes: 8 },
      { weightVersion: 7, success: 1, reward: 1, episodes: 2 },
    ]);
  });
  it('merge and step-time rows', () => {
    expect(mergeRows([stepPoint(4)])).toEqual([
      { step: 4, tokensBefore: 1000, tokensAfter: 400, ratio: 2.5, samplesPerEpisode: 1.25 },
    ]);
    expect(stepTimeRows([stepPoint(4, { rolloutS: 2.5, updateS: -1 })])).toEqual([
      { step: 4, rollout: 2.5, update: 0 },
    ]);
  });
  it('marker lines: one per step, the latest version wins, short labels', () => {
    const lines = markerLines([
      marker('bbbbbbbbbbbbbbbb', 5, 20),
      marker('aaaaaaaaaaaaaaaa', 5, 10),
      marker('cccc', 2, 30),
    ]);
    expect(lines).toEqual([
      { step: 2, label: 'cccc', codeVersion: 'cccc' },
      { step: 5, label: 'bbbbbbbb', codeVersion: 'bbbbbbbbbbbbbbbb' },
    ]);
  });
  it('batch fill fraction is clamped and labelled with the unit', () => {
    expect(batchFill(null)).toBeNull();
    expect(
      batchFill({
        strategy: 'C2',
        ready: false,
        current: 3,
        target: 8,
        unit: 'tasks',
        detail: '3/8 tasks with 4 episodes',
      }),
    ).toEqual({
      fraction: 0.375,
      label: '3/8 tasks',
      detail: '3/8 tasks with 4 episodes',
      ready: false,
    });
    expect(
      batchFill({ strategy: 'C1', ready: true, current: 12, target: 8, unit: 'episodes', detail: '' })?.fraction,
    ).toBe(1);
    expect(
      batchFill({ strategy: 'C4', ready: true, current: 0, target: 0, unit: 'clients', detail: '' })?.fraction,
    ).toBe(1);
  });
  it('compare rows align two runs by step', () => {
    const rows = compareRows(
      [stepPoint(1, { rewardMean: 1 }), stepPoint(2, { rewardMean: 2 })],
      [stepPoint(2, { rewardMean: 5, successRate: null }), stepPoint(3, { rewardMean: 6 })],
    );
    expect(rows).toEqual([
      { step: 1, aReward: 1, bReward: null, aSuccess: 0.5, bSuccess: null },
      { step: 2, aReward: 2, bReward: 5, aSuccess: 0.5, bSuccess: null },
      { step: 3, aReward: null, bReward: 6, aSuccess: null, bSuccess: 0.5 },
    ]);
  });
});

describe('formatting', () => {
  it('short versions and numbers', () => {
    expect(shortVersion('0123456789abcdef')).toBe('01234567');
    expect(shortVersion(null)).toBe('—');
    expect(fmt(0.123456)).toBe('0.123');
    expect(fmt(2)).toBe('2');
    expect(fmt(12_345)).toBe('12.3k');
    expect(fmt(NaN)).toBe('—');
    expect(fmt(1.5)).toBe('1.5');
  });
});
