import { describe, expect, it } from 'vitest';
import type { EpisodeRow } from '../../../../shared/workbench-api';
import { episodeRow } from '../../test-fixtures';
import {
  EMPTY_FILTER_FORM,
  episodeTick,
  filterFromForm,
  formatDuration,
  formatReward,
  formatSuccess,
  pagesForRange,
  pagesPresent,
  pruneRows,
  queryKey,
  scrollCompensation,
  shiftRows,
  storePage,
} from './episode-query';

const row = (episodeId: string): EpisodeRow => ({
  episodeId,
  kind: 'train',
  status: 'ended',
  taskId: 't',
  clientId: 'c',
  codeVersion: 'v',
  role: null,
  reward: 1,
  success: true,
  calls: 2,
  createdAt: 0,
  finishedAt: 10,
  hasTimelines: true,
});

describe('filterFromForm', () => {
  it('leaves out empty fields and trims text', () => {
    expect(filterFromForm(EMPTY_FILTER_FORM)).toEqual({ filter: {}, errors: [] });
    expect(
      filterFromForm({
        ...EMPTY_FILTER_FORM,
        task: '  add ',
        clientId: 'c1',
        codeVersion: 'ab12',
        role: ' solver ',
        kind: 'eval',
        status: 'ended',
      }),
    ).toEqual({
      filter: { task: 'add', clientId: 'c1', codeVersion: 'ab12', role: 'solver', kind: 'eval', status: 'ended' },
      errors: [],
    });
  });
  it('parses reward bounds and reports bad ones without sending them', () => {
    expect(filterFromForm({ ...EMPTY_FILTER_FORM, minReward: '0.5', maxReward: '1' }).filter).toEqual({
      minReward: 0.5,
      maxReward: 1,
    });
    const bad = filterFromForm({ ...EMPTY_FILTER_FORM, minReward: 'abc', maxReward: '2' });
    expect(bad.filter).toEqual({ maxReward: 2 });
    expect(bad.errors).toEqual(['min reward must be a number, got “abc”']);
    expect(filterFromForm({ ...EMPTY_FILTER_FORM, minReward: '3', maxReward: '2' }).errors).toEqual([
      'min reward is above max reward',
    ]);
  });
  it('keys queries independently of field order', () => {
    expect(queryKey('r', { task: 'a', clientId: 'b' }, 'newest')).toBe(
      queryKey('r', { clientId: 'b', task: 'a' }, 'newest'),
    );
    expect(queryKey('r', { task: 'a' }, 'newest')).not.toBe(queryKey('r', { task: 'a' }, 'oldest'));
  });
});

describe('paging', () => {
  it('lists the pages a visible range needs, clamped to the total', () => {
    expect(pagesForRange(0, 10, 200, 100_000)).toEqual([0]);
    expect(pagesForRange(190, 420, 200, 100_000)).toEqual([0, 1, 2]);
    expect(pagesForRange(99_990, 100_050, 200, 100_000)).toEqual([499]);
    expect(pagesForRange(0, 10, 200, 0)).toEqual([]);
  });
  it('stores pages by absolute index', () => {
    const rows = storePage(new Map(), 200, [row('a'), row('b')]);
    expect(rows.get(200)?.episodeId).toBe('a');
    expect(rows.get(201)?.episodeId).toBe('b');
    expect(rows.size).toBe(2);
  });
  it('shifts cached rows down when episodes arrive on top, dropping those past the end', () => {
    const rows = storePage(new Map(), 0, [row('a'), row('b'), row('c')]);
    const shifted = shiftRows(rows, 2, 4);
    expect([...shifted].map(([i, r]) => [i, r.episodeId])).toEqual([
      [2, 'a'],
      [3, 'b'],
    ]);
  });
  it('bounds the row cache around the page just loaded and reports which pages remain', () => {
    let rows = new Map<number, EpisodeRow>();
    for (let p = 0; p < 10; p++)
      rows = storePage(
        rows,
        p * 10,
        Array.from({ length: 10 }, (_, i) => row(`e${p * 10 + i}`)),
      );
    expect(pruneRows(rows, 50, 200).size).toBe(100);
    const pruned = pruneRows(rows, 80, 40);
    expect([...pruned.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => 60 + i));
    expect([...pagesPresent(pruned, [0, 5, 6, 7, 8, 9], 10)]).toEqual([6, 7, 8, 9]);
  });
  it('compensates the scroll only for a newest-first list scrolled away from the top', () => {
    expect(scrollCompensation('newest', 500, 3, 24)).toBe(72);
    expect(scrollCompensation('newest', 0, 3, 24)).toBe(0);
    expect(scrollCompensation('oldest', 500, 3, 24)).toBe(0);
    expect(scrollCompensation('newest', 500, 0, 24)).toBe(0);
  });
});

describe('formatting', () => {
  it('formats rewards, success and durations', () => {
    expect(formatReward(null)).toBe('—');
    expect(formatReward(1)).toBe('1');
    expect(formatReward(0.12345)).toBe('0.123');
    expect(formatSuccess(true)).toBe('✓');
    expect(formatSuccess(null)).toBe('—');
    expect(formatDuration(0, null)).toBe('…');
    expect(formatDuration(0, 250)).toBe('250 ms');
    expect(formatDuration(0, 2500)).toBe('2.5 s');
    expect(formatDuration(0, 125_000)).toBe('2 m 5 s');
  });
});

describe('episodeTick', () => {
  it('changes when the episode ends or its timelines arrive', () => {
    expect(episodeTick(null)).toBeNull();
    const running = episodeRow('e1', { status: 'open', finishedAt: null, hasTimelines: false });
    const ended = { ...running, status: 'ended' as const, finishedAt: 9 };
    const stored = { ...ended, hasTimelines: true };
    expect(episodeTick(running)).toBe('e1|open||false');
    expect(new Set([episodeTick(running), episodeTick(ended), episodeTick(stored)]).size).toBe(3);
  });
});
