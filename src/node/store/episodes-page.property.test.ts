// episodesPage against a reference written in plain TypeScript: any episodes, any filter, any
// order, any page — same rows, same total.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeFilter, EpisodeRow } from '../../shared/workbench-api';
import { newRun, tempStore, type TempStore } from './test-support';
import type { EpisodeInput, EpisodeOrder } from './types';

const episodeArb = fc.record({
  kind: fc.constantFrom('train' as const, 'eval' as const),
  status: fc.constantFrom('open' as const, 'ended' as const, 'aborted' as const),
  taskId: fc.option(fc.stringMatching(/^[a-cA-C_%]{0,4}$/), { nil: null }),
  clientId: fc.constantFrom('c1', 'c2', 'c3'),
  codeVersion: fc.option(fc.constantFrom('v1', 'v2'), { nil: null }),
  role: fc.option(fc.constantFrom('proposer', 'solver'), { nil: null }),
  reward: fc.option(fc.constantFrom(-1, 0, 0.25, 0.5, 1), { nil: null }),
  createdAt: fc.integer({ min: 0, max: 3 }),
});

const anyFilterArb: fc.Arbitrary<EpisodeFilter> = fc.record(
  {
    task: fc.stringMatching(/^[a-cA-C_%]{0,2}$/),
    clientId: fc.constantFrom('c1', 'c2', 'c3', 'c9'),
    codeVersion: fc.constantFrom('v1', 'v2'),
    role: fc.constantFrom('proposer', 'solver'),
    kind: fc.constantFrom('train' as const, 'eval' as const),
    status: fc.constantFrom('open' as const, 'ended' as const, 'aborted' as const),
    minReward: fc.constantFrom(-1, 0, 0.3),
    maxReward: fc.constantFrom(0, 0.5, 1),
  },
  { requiredKeys: [] },
);
/** Mostly no filter or one field, so pages are long enough to show order and ties. */
const filterArb: fc.Arbitrary<EpisodeFilter> = fc.oneof(
  fc.constant({}),
  anyFilterArb.map((f) => Object.fromEntries(Object.entries(f).slice(0, 1))),
  anyFilterArb,
);

/** The reference: SQLite's LIKE is case-insensitive for ASCII, so is this. */
function matches(e: EpisodeInput, f: EpisodeFilter): boolean {
  if (
    f.task !== undefined &&
    f.task !== '' &&
    (e.taskId === null || !e.taskId.toLowerCase().includes(f.task.toLowerCase()))
  )
    return false;
  if (f.clientId !== undefined && e.clientId !== f.clientId) return false;
  if (f.codeVersion !== undefined && e.codeVersion !== f.codeVersion) return false;
  if (f.role !== undefined && e.role !== f.role) return false;
  if (f.kind !== undefined && e.kind !== f.kind) return false;
  if (f.status !== undefined && e.status !== f.status) return false;
  if (f.minReward !== undefined && (e.reward === null || e.reward < f.minReward)) return false;
  if (f.maxReward !== undefined && (e.reward === null || e.reward > f.maxReward)) return false;
  return true;
}

function compare(order: EpisodeOrder): (a: [EpisodeInput, number], b: [EpisodeInput, number]) => number {
  const time = ([a, i]: [EpisodeInput, number], [b, j]: [EpisodeInput, number]): number =>
    a.createdAt - b.createdAt || i - j;
  const reward = (a: EpisodeInput, b: EpisodeInput): number => {
    if (a.reward === null || b.reward === null) return (a.reward === null ? 1 : 0) - (b.reward === null ? 1 : 0);
    return 0;
  };
  switch (order) {
    case 'oldest':
      return time;
    case 'newest':
      return (x, y) => -time(x, y);
    case 'reward_asc':
      return (x, y) => reward(x[0], y[0]) || (x[0].reward ?? 0) - (y[0].reward ?? 0) || time(x, y);
    case 'reward_desc':
      return (x, y) => reward(x[0], y[0]) || (y[0].reward ?? 0) - (x[0].reward ?? 0) || -time(x, y);
  }
}

describe('episodesPage (property)', () => {
  let temp: TempStore;
  let runs = 0;
  beforeAll(() => {
    temp = tempStore();
  });
  afterAll(() => temp.cleanup());

  it('returns what a reference filter + sort + slice returns', () => {
    fc.assert(
      fc.property(
        fc.array(episodeArb, { maxLength: 40 }),
        filterArb,
        fc.constantFrom<EpisodeOrder>('newest', 'oldest', 'reward_desc', 'reward_asc'),
        fc.nat({ max: 30 }),
        fc.integer({ min: 1, max: 25 }),
        (specs, filter, order, offset, limit) => {
          const runId = `r${runs++}`;
          temp.store.createRun(newRun(runId));
          const episodes: EpisodeInput[] = specs.map((s, i) => ({
            ...s,
            episodeId: `e${i}`,
            success: null,
            calls: 1,
            finishedAt: null,
          }));
          temp.store.transaction(() => episodes.forEach((e) => temp.store.putEpisode(runId, e)));
          const expected = episodes
            .map((e, i): [EpisodeInput, number] => [e, i])
            .filter(([e]) => matches(e, filter))
            .sort(compare(order))
            .map(([e]) => e.episodeId);
          const page = temp.store.episodesPage(runId, filter, offset, limit, order);
          expect(page.total).toBe(expected.length);
          expect(page.rows.map((r: EpisodeRow) => r.episodeId)).toEqual(expected.slice(offset, offset + limit));
        },
      ),
      { numRuns: 200 },
    );
  });
});
