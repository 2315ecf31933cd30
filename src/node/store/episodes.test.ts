import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../../shared/chat';
import { mergeTimelines, type Timeline } from '../../shared/timeline';
import { SYS, conversation, say } from '../../shared/timeline/testing/scenes';
import { WorkbenchError, type EpisodeFilter } from '../../shared/workbench-api';
import { episodeInput, newRun, tempStore, type TempStore } from './test-support';
import type { EpisodeOrder } from './types';

const fround = (xs: readonly number[]): number[] => xs.map((x) => Math.fround(x));

function episodeCalls(episodeId: string): Timeline[] {
  return conversation(episodeId, [
    { reply: say('one') },
    { reply: say('two') },
    { reply: say('three'), messages: [SYS, user('What is 12+35?')] },
  ]);
}

describe('store: episodes', () => {
  let temp: TempStore;
  beforeEach(() => {
    temp = tempStore();
    temp.store.createRun(newRun('r'));
  });
  afterEach(() => temp.cleanup());

  it('upserts an episode as it progresses, keeping known values a later update lacks', () => {
    const { store } = temp;
    store.putEpisode(
      'r',
      episodeInput('e1', { status: 'open', role: 'solver', reward: null, success: null, finishedAt: null, calls: 0 }),
    );
    expect(store.getEpisode('r', 'e1')).toMatchObject({
      status: 'open',
      reward: null,
      success: null,
      hasTimelines: false,
    });
    store.putEpisode('r', episodeInput('e1', { status: 'ended', reward: 0.5, success: false, calls: 3 }));
    store.putEpisode(
      'r',
      episodeInput('e1', { status: 'ended', reward: null, success: null, finishedAt: null, taskId: null, calls: 1 }),
    );
    expect(store.getEpisode('r', 'e1')).toEqual({
      ...episodeInput('e1', { role: 'solver', reward: 0.5, success: false, calls: 3 }),
      hasTimelines: false,
    });
    expect(store.episodesPage('r', {}, 0, 10, 'newest').total).toBe(1);
  });

  it('stores timelines and merged samples and serves the episode detail', () => {
    const { store } = temp;
    const calls = episodeCalls('e1');
    const merged = mergeTimelines(calls, { mode: 'linear', level: 'token' });
    store.putEpisode('r', episodeInput('e1', { calls: 3 }));
    store.putEpisodeTimelines('r', 'e1', calls, { samples: merged.samples, stats: merged.stats });
    expect(store.getEpisode('r', 'e1').hasTimelines).toBe(true);
    expect(store.episodeTimelines('r', 'e1')).toEqual(
      calls.map((t) => ({ ...t, outputLogprobs: fround(t.outputLogprobs) })),
    );

    const detail = store.episodeDetail('r', 'e1');
    expect(detail.episode.episodeId).toBe('e1');
    expect(detail.calls.map((c) => [c.timelineId, c.breakCause, c.sampleIndex])).toEqual([
      ['e1-0', null, 0],
      ['e1-1', null, 0],
      ['e1-2', 'rewritten_history', 1],
    ]);
    expect(detail.samples.map((s) => s.timelineIds)).toEqual([['e1-0', 'e1-1'], ['e1-2']]);
    expect(detail.samples[0]?.tokens.map((t) => t.mask)).toEqual(merged.samples[0]?.lossMask);
    expect(detail.stats?.tokensAfter).toBe(merged.stats.tokensAfter);
    expect(detail.calls[0]?.tokens[0]?.text).toMatch(/^⟨\d+⟩$/);

    // With a vocabulary the tokens have their text.
    store.putVocab(
      'r',
      Array.from({ length: 200 }, (_, i) => `p${i}`),
    );
    const first = store.episodeDetail('r', 'e1').calls[0]?.tokens[0];
    expect(first?.text).toBe(`p${first?.id}`);
  });

  it('keeps the samples an update trained: a later preview never replaces them', () => {
    const { store } = temp;
    const calls = episodeCalls('e1');
    const preview = mergeTimelines(calls, { mode: 'none', level: 'token' });
    const trained = mergeTimelines(calls, { mode: 'linear', level: 'token' });
    const info = {
      step: 3,
      weightVersion: 3,
      advantage: 0.5,
      algo: 'grpo' as const,
      merge: 'linear' as const,
      level: 'token' as const,
    };
    store.putEpisode('r', episodeInput('e1', { calls: 3 }));
    expect(
      store.putEpisodeSamples('r', 'nope', { samples: trained.samples, stats: trained.stats, trained: info }),
    ).toBe(false);
    store.putEpisodeTimelines('r', 'e1', calls, { samples: preview.samples, stats: preview.stats, trained: null });
    expect(store.episodeDetail('r', 'e1')).toMatchObject({
      trained: null,
      samples: { length: preview.samples.length },
    });
    expect(store.putEpisodeSamples('r', 'e1', { samples: trained.samples, stats: trained.stats, trained: info })).toBe(
      true,
    );
    const detail = store.episodeDetail('r', 'e1');
    expect(detail.trained).toEqual(info);
    expect(detail.samples).toHaveLength(trained.samples.length);
    // A preview arriving late (the episode fetch racing the step's) leaves the trained samples.
    store.putEpisodeTimelines('r', 'e1', calls, { samples: preview.samples, stats: preview.stats, trained: null });
    store.putEpisodeSamples('r', 'e1', { samples: preview.samples, stats: preview.stats });
    expect(store.episodeDetail('r', 'e1')).toMatchObject({
      trained: info,
      samples: { length: trained.samples.length },
    });
    expect(store.episodeTimelines('r', 'e1')).toHaveLength(3);
  });

  it('replaces timelines on a second put, and stores tree samples', () => {
    const { store } = temp;
    const calls = episodeCalls('e1');
    store.putEpisode('r', episodeInput('e1'));
    store.putEpisodeTimelines('r', 'e1', calls.slice(0, 2), null);
    expect(store.episodeDetail('r', 'e1').samples).toEqual([]);
    expect(store.episodeDetail('r', 'e1').calls).toHaveLength(2);
    const tree = mergeTimelines(calls, { mode: 'tree', level: 'token' });
    store.putEpisodeTimelines('r', 'e1', calls, tree);
    const detail = store.episodeDetail('r', 'e1');
    expect(detail.calls).toHaveLength(3);
    expect(detail.samples.map((s) => s.kind)).toEqual(tree.samples.map((s) => s.kind));
    const stored = tree.samples[0];
    if (stored?.kind !== 'tree') throw new Error('expected a tree sample');
    expect(detail.samples[0]?.parents).toEqual(stored.parents);
  });

  it('writes nothing when the timelines are invalid', () => {
    const { store } = temp;
    const calls = episodeCalls('e1');
    store.putEpisode('r', episodeInput('e1'));
    store.putEpisodeTimelines('r', 'e1', calls, null);
    const bad = { ...calls[0]!, promptIds: [-5] };
    expect(() => store.putEpisodeTimelines('r', 'e1', [bad], null)).toThrow(/not a uint32/);
    expect(store.episodeTimelines('r', 'e1')).toHaveLength(3);
    expect(() => store.putEpisodeTimelines('r', 'e1', episodeCalls('e2'), null)).toThrow(
      'timeline e2-0 belongs to episode e2, not e1',
    );
    expect(store.episodeTimelines('r', 'e1').map((t) => t.id)).toEqual(['e1-0', 'e1-1', 'e1-2']);
  });

  it('throws not_found for an unknown episode', () => {
    const { store } = temp;
    expect(() => store.episodeDetail('r', 'nope')).toThrow(WorkbenchError);
    expect(() => store.episodeDetail('r', 'nope')).toThrow('run "r" has no episode "nope"');
    expect(() => store.putEpisodeTimelines('r', 'nope', [], null)).toThrow(/no episode "nope"/);
    expect(() => store.getEpisode('ghost', 'nope')).toThrow(/no run "ghost"/);
  });

  describe('pages', () => {
    beforeEach(() => {
      const { store } = temp;
      store.transaction(() => {
        for (let i = 0; i < 40; i++) {
          store.putEpisode(
            'r',
            episodeInput(`e${i}`, {
              createdAt: 1000 + i,
              taskId: i % 4 === 0 ? `math_${i}%` : `word_${i}`,
              clientId: `c${i % 3}`,
              codeVersion: i < 20 ? 'v1' : 'v2',
              role: i % 2 === 0 ? 'proposer' : i % 4 === 1 ? 'solver' : null,
              kind: i % 5 === 0 ? 'eval' : 'train',
              status: i % 7 === 0 ? 'open' : 'ended',
              reward: i % 7 === 0 ? null : (i % 10) / 10,
            }),
          );
        }
        // Another run's episodes never show.
        store.createRun(newRun('other'));
        store.putEpisode('other', episodeInput('x'));
      });
    });

    const ids = (filter: EpisodeFilter, order: EpisodeOrder = 'newest', offset = 0, limit = 100): string[] =>
      temp.store.episodesPage('r', filter, offset, limit, order).rows.map((e) => e.episodeId);

    it('orders newest/oldest and pages with a total', () => {
      const page = temp.store.episodesPage('r', {}, 5, 3, 'newest');
      expect(page).toMatchObject({ total: 40, offset: 5 });
      expect(page.rows.map((e) => e.episodeId)).toEqual(['e34', 'e33', 'e32']);
      expect(ids({}, 'oldest', 0, 2)).toEqual(['e0', 'e1']);
      expect(temp.store.episodesPage('r', {}, 100, 10, 'newest')).toEqual({ total: 40, offset: 100, rows: [] });
    });

    it('orders by reward with unrewarded episodes last', () => {
      const desc = temp.store.episodesPage('r', {}, 0, 100, 'reward_desc').rows.map((e) => e.reward);
      const asc = temp.store.episodesPage('r', {}, 0, 100, 'reward_asc').rows.map((e) => e.reward);
      const rewarded = desc.filter((r) => r !== null);
      expect(rewarded).toEqual([...rewarded].sort((a, b) => b - a));
      expect(desc.slice(rewarded.length).every((r) => r === null)).toBe(true);
      expect(asc.slice(0, rewarded.length)).toEqual([...rewarded].sort((a, b) => a - b));
      expect(asc.slice(rewarded.length).every((r) => r === null)).toBe(true);
    });

    it('filters by each field, and the total counts the same filter', () => {
      const { store } = temp;
      expect(ids({ clientId: 'c1' }).every((id) => Number(id.slice(1)) % 3 === 1)).toBe(true);
      expect(store.episodesPage('r', { clientId: 'c1' }, 0, 2, 'newest').total).toBe(13);
      expect(store.episodesPage('r', { codeVersion: 'v2' }, 0, 1, 'newest').total).toBe(20);
      expect(store.episodesPage('r', { kind: 'eval' }, 0, 1, 'newest').total).toBe(8);
      expect(store.episodesPage('r', { role: 'proposer' }, 0, 1, 'newest').total).toBe(20);
      expect(ids({ role: 'solver', codeVersion: 'v1' }, 'oldest')).toEqual(['e1', 'e5', 'e9', 'e13', 'e17']);
      expect(ids({ status: 'open' }, 'oldest')).toEqual(['e0', 'e7', 'e14', 'e21', 'e28', 'e35']);
      expect(ids({ minReward: 0.8 }).length).toBe(store.episodesPage('r', { minReward: 0.8 }, 0, 1, 'newest').total);
      expect(ids({ minReward: 0.8, maxReward: 0.8 }, 'oldest')).toEqual(['e8', 'e18', 'e38']);
      expect(ids({ task: 'word_1' }, 'oldest')).toEqual(['e1', 'e10', 'e11', 'e13', 'e14', 'e15', 'e17', 'e18', 'e19']);
      expect(ids({ clientId: 'c0', codeVersion: 'v1', kind: 'train' }, 'oldest')).toEqual([
        'e3',
        'e6',
        'e9',
        'e12',
        'e18',
      ]);
    });

    it('treats the task filter as a plain substring (no LIKE wildcards)', () => {
      expect(ids({ task: '%' }, 'oldest')).toEqual(['e0', 'e4', 'e8', 'e12', 'e16', 'e20', 'e24', 'e28', 'e32', 'e36']);
      expect(ids({ task: 'math_' }).length).toBe(10);
      expect(ids({ task: 'h_2' }, 'oldest')).toEqual(['e20', 'e24', 'e28']);
      expect(ids({ task: '_' }).length).toBe(40);
      expect(ids({ task: 'ma%h' })).toEqual([]);
    });
  });
});
