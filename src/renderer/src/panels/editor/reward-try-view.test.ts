import { describe, expect, it } from 'vitest';
import { changedCompare, fmtDelta, histogramBars, tryParams, tryTarget, DEFAULT_TRY_FORM } from './reward-try-view';

const f = (path: string, editable = true) => ({ path, editable });

describe('reward try view', () => {
  it('tries the open reward file, else the run reward.* file', () => {
    const files = [f('ex/client.ts'), f('ex/reward.ts'), f('ex/reward-alt.ts'), f('src/shared/task.ts', false)];
    expect(tryTarget(files, 'ex/reward-alt.ts')).toBe('ex/reward-alt.ts');
    expect(tryTarget(files, 'ex/client.ts')).toBe('ex/reward.ts');
    expect(tryTarget(files, null)).toBe('ex/reward.ts');
    expect(tryTarget([f('ex/client.ts')], 'ex/client.ts')).toBeNull();
  });

  it('turns the form into rewardTry params and refuses a bad N', () => {
    expect(tryParams(DEFAULT_TRY_FORM, 'r.ts', undefined)).toEqual({ ok: true, params: { path: 'r.ts', last: 200 } });
    expect(tryParams({ last: '5', task: ' t1 ', codeVersion: 'abc' }, 'r.ts', 'x')).toEqual({
      ok: true,
      params: { path: 'r.ts', last: 5, content: 'x', task: 't1', codeVersion: 'abc' },
    });
    expect(tryParams({ ...DEFAULT_TRY_FORM, last: '0' }, 'r.ts', undefined).ok).toBe(false);
    expect(tryParams({ ...DEFAULT_TRY_FORM, last: '2.5' }, 'r.ts', undefined).ok).toBe(false);
  });

  it('pairs the histograms bin by bin and finds the tallest bar', () => {
    const bins = (counts: number[]) => counts.map((count, i) => ({ lo: i, hi: i + 1, count }));
    const d = (counts: number[]) => ({
      count: 0,
      mean: null,
      std: null,
      min: null,
      max: null,
      histogram: bins(counts),
    });
    const { bars, max } = histogramBars({ old: d([3, 0]), new: d([1, 4]) });
    expect(bars).toEqual([
      { lo: 0, hi: 1, old: 3, new: 1 },
      { lo: 1, hi: 2, old: 0, new: 4 },
    ]);
    expect(max).toBe(4);
  });

  it('formats a change for the inspector', () => {
    expect(fmtDelta(-1)).toBe('-1');
    expect(fmtDelta(0.5)).toBe('+0.5');
    expect(fmtDelta(null)).toBe('new');
    const c = {
      episodeId: 'e',
      taskId: 't',
      oldReward: 1,
      newReward: 0,
      delta: -1,
      oldSuccess: true,
      newSuccess: null,
    };
    expect(changedCompare(c, 'a/b/reward.ts')).toEqual({
      title: 'reward try of reward.ts',
      rows: [
        { label: 'reward', old: '1', new: '0' },
        { label: 'success', old: 'yes', new: '—' },
      ],
    });
  });
});
