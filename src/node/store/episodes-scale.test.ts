// Issue 6: "Lists stay fast with 100,000 episodes". Asserts on the query plans (every page query
// walks an index; the common ones need no sort), not on wall time, with 100k real rows.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeFilter } from '../../shared/workbench-api';
import { episodePageSql } from './episode-query';
import { episodeInput, newRun, tempStore, type TempStore } from './test-support';
import type { EpisodeOrder } from './types';

const N = 100_000;
const ORDERS: EpisodeOrder[] = ['newest', 'oldest', 'reward_desc', 'reward_asc'];

describe('store: 100,000 episodes', () => {
  let temp: TempStore;
  let reader: Database.Database;
  let run: number;

  beforeAll(() => {
    temp = tempStore();
    const { store } = temp;
    store.createRun(newRun('small'));
    store.putEpisode('small', episodeInput('s1'));
    store.createRun(newRun('big'));
    store.transaction(() => {
      for (let i = 0; i < N; i++) {
        store.putEpisode(
          'big',
          episodeInput(`e${i}`, {
            createdAt: 1_000 + i,
            taskId: `task_${i % 500}`,
            clientId: `c${i % 8}`,
            codeVersion: `v${Math.floor(i / 10_000)}`,
            kind: i % 5 === 0 ? 'eval' : 'train',
            status: i % 7 === 0 ? 'open' : 'ended',
            reward: i % 7 === 0 ? null : (i % 10) / 10,
          }),
        );
      }
    });
    reader = new Database(temp.path, { readonly: true });
    const key: unknown = reader.prepare("SELECT id FROM runs WHERE run_id = 'big'").pluck().get();
    if (typeof key !== 'number') throw new Error('no run key');
    run = key;
  });

  afterAll(() => {
    reader.close();
    temp.cleanup();
  });

  const plan = (sql: string, params: unknown[]): string[] =>
    reader
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((row) => (typeof row === 'object' && row !== null && 'detail' in row ? String(row.detail) : ''));

  const pagePlan = (filter: EpisodeFilter, order: EpisodeOrder): string[] => {
    const q = episodePageSql(run, filter, order);
    return plan(q.page, [...q.params, 200, 0]);
  };

  const usesIndex = (lines: string[]): boolean =>
    lines.some((l) => /^SEARCH episodes USING (COVERING )?INDEX episodes_/.test(l)) &&
    !lines.some((l) => /^SCAN episodes/.test(l));

  it('serves every filter × order page through an index', () => {
    const filters: EpisodeFilter[] = [
      {},
      { clientId: 'c1' },
      { codeVersion: 'v3' },
      { kind: 'eval' },
      { status: 'open' },
      { task: 'task_4' },
      { minReward: 0.5 },
      { minReward: 0.2, maxReward: 0.4 },
      { clientId: 'c1', kind: 'train', task: '4' },
    ];
    for (const filter of filters) {
      for (const order of ORDERS)
        expect(
          usesIndex(pagePlan(filter, order)),
          `${JSON.stringify(filter)} ${order}: ${pagePlan(filter, order).join(' | ')}`,
        ).toBe(true);
      const q = episodePageSql(run, filter, 'newest');
      expect(usesIndex(plan(q.count, q.params)), `count ${JSON.stringify(filter)}`).toBe(true);
    }
  });

  it('needs no sort for time and reward order, unfiltered or with one equality filter', () => {
    for (const order of ORDERS) expect(pagePlan({}, order).join(' | ')).not.toMatch(/TEMP B-TREE/);
    for (const filter of [
      { clientId: 'c1' },
      { codeVersion: 'v3' },
      { kind: 'eval' as const },
      { status: 'open' as const },
    ]) {
      for (const order of ['newest', 'oldest'] as const)
        expect(pagePlan(filter, order).join(' | ')).not.toMatch(/TEMP B-TREE/);
    }
    expect(pagePlan({ minReward: 0.5 }, 'reward_desc').join(' | ')).not.toMatch(/TEMP B-TREE/);
    expect(pagePlan({ minReward: 0.5 }, 'reward_asc').join(' | ')).not.toMatch(/TEMP B-TREE/);
  });

  it('counts a task-substring filter from an index alone (no row reads)', () => {
    const q = episodePageSql(run, { task: 'task_4' }, 'newest');
    expect(plan(q.count, q.params).join(' | ')).toMatch(/USING COVERING INDEX episodes_task/);
  });

  it('returns correct pages and totals at that size', () => {
    const { store } = temp;
    const page = store.episodesPage('big', { clientId: 'c3', status: 'ended' }, 100, 50, 'newest');
    const expected = Array.from({ length: N }, (_, i) => N - 1 - i).filter((i) => i % 8 === 3 && i % 7 !== 0);
    expect(page.total).toBe(expected.length);
    expect(page.rows.map((r) => r.episodeId)).toEqual(expected.slice(100, 150).map((i) => `e${i}`));
    const low = store.episodesPage('big', {}, 0, 5, 'reward_asc').rows;
    expect(low.every((r) => r.reward === 0)).toBe(true);
    expect(low.map((r) => r.episodeId)).toEqual(['e10', 'e20', 'e30', 'e40', 'e50']);
    const last = store.episodesPage('big', {}, N - 3, 10, 'reward_asc').rows;
    expect(last.every((r) => r.reward === null)).toBe(true);
    expect(store.listRuns(null).find((r) => r.runId === 'big')?.episodes).toBe(N);
    expect(store.episodesPage('small', {}, 0, 10, 'newest').total).toBe(1);
  });
});
