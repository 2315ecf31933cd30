import { describe, expect, it } from 'vitest';
import { mergeTimelines, type Timeline } from '../../shared/timeline';
import { conversation, say } from '../../shared/timeline/testing/scenes';
import { SYS } from '../../shared/timeline/testing/scenes';
import { user } from '../../shared/chat';
import type { EpisodeRow } from '../../shared/workbench-api';
import { EpisodeDetailSchema } from '../../shared/workbench-api';
import { episodeDetailView, tokenText } from './views';

const row: EpisodeRow = {
  episodeId: 'e',
  kind: 'train',
  status: 'ended',
  taskId: 't1',
  clientId: 'c1',
  codeVersion: 'v1',
  role: null,
  reward: 1,
  success: true,
  calls: 3,
  createdAt: 1,
  finishedAt: 2,
  hasTimelines: true,
};

/** Three calls: the first two chain, the third rewrites the history (a new chain). */
function rewrittenEpisode(): Timeline[] {
  return conversation('e', [
    { reply: say('one') },
    { reply: say('two') },
    { reply: say('three'), messages: [SYS, user('What is 12+35?')] },
  ]);
}

describe('episodeDetailView', () => {
  it('shows each call as context then trained tokens, with its break and its sample', () => {
    const timelines = rewrittenEpisode();
    const merged = mergeTimelines(timelines, { mode: 'linear', level: 'token' });
    expect(merged.stats.breaks).toEqual([{ episodeId: 'e', timelineId: 'e-2', cause: 'rewritten_history' }]);
    // Given out of order: calls come back in call order.
    const detail = episodeDetailView({ episode: row, timelines: [...timelines].reverse(), merged, vocab: null });
    expect(EpisodeDetailSchema.parse(detail)).toEqual(detail);

    expect(detail.calls.map((c) => [c.timelineId, c.breakCause, c.sampleIndex])).toEqual([
      ['e-0', null, 0],
      ['e-1', null, 0],
      ['e-2', 'rewritten_history', 1],
    ]);
    const t = timelines[1]!;
    const call = detail.calls[1]!;
    expect(call.promptTokens).toBe(t.promptIds.length);
    expect(call.tokens.map((x) => x.id)).toEqual([...t.promptIds, ...t.outputIds]);
    expect(call.tokens.slice(0, t.promptIds.length).every((x) => x.mask === 0 && x.logprob === null)).toBe(true);
    expect(call.tokens.slice(t.promptIds.length).map((x) => [x.mask, x.logprob])).toEqual(
      t.outputLogprobs.map((lp) => [1, lp]),
    );
    expect(call.tokens[0]?.text).toBe(`⟨${t.promptIds[0]}⟩`);
  });

  it('shows each sample with its loss mask, rollout logprobs (null where untrained) and calls', () => {
    const timelines = rewrittenEpisode();
    const merged = mergeTimelines(timelines, { mode: 'linear', level: 'token' });
    const detail = episodeDetailView({ episode: row, timelines, merged, vocab: null });
    expect(detail.samples).toHaveLength(2);
    merged.samples.forEach((s, i) => {
      const view = detail.samples[i]!;
      expect(view).toMatchObject({ index: i, kind: 'linear', timelineIds: s.absorbedTimelineIds, parents: null });
      expect(view.tokens.map((x) => x.mask)).toEqual(s.lossMask);
      expect(view.tokens.map((x) => x.logprob)).toEqual(
        s.rolloutLogprobs.map((lp, j) => (s.lossMask[j] === 1 ? lp : null)),
      );
    });
    expect(detail.samples[0]?.timelineIds).toEqual(['e-0', 'e-1']);
    expect(detail.stats).toEqual({
      tokensBefore: merged.stats.tokensBefore,
      tokensAfter: merged.stats.tokensAfter,
      compressionRatio: merged.stats.compressionRatio,
      breakCounts: merged.stats.breakCounts,
    });
    expect(detail.stats?.breakCounts.rewritten_history).toBe(1);
  });

  it('gives tree samples their parents', () => {
    const timelines = rewrittenEpisode();
    const merged = mergeTimelines(timelines, { mode: 'tree', level: 'token' });
    const detail = episodeDetailView({ episode: row, timelines, merged, vocab: null });
    const tree = merged.samples.find((s) => s.kind === 'tree');
    if (tree?.kind !== 'tree') throw new Error('expected a tree sample');
    const view = detail.samples[merged.samples.indexOf(tree)]!;
    expect(view.kind).toBe('tree');
    expect(view.parents).toEqual(tree.parents);
    expect(view.parents?.[0]).toBe(-1);
    for (const c of detail.calls) expect(c.sampleIndex).not.toBeNull();
  });

  it('decodes token text with the vocabulary, ⟨id⟩ for ids it lacks', () => {
    const vocab = ['a', 'b', 'c', 'd'];
    expect(tokenText(vocab, 2)).toBe('c');
    expect(tokenText(vocab, 40)).toBe('⟨40⟩');
    expect(tokenText(null, 1)).toBe('⟨1⟩');
    const timelines = rewrittenEpisode();
    const detail = episodeDetailView({ episode: row, timelines, merged: null, vocab });
    const first = detail.calls[0]!.tokens[0]!;
    expect(first.text).toBe(tokenText(vocab, first.id));
  });

  it('without a merge: no samples, no stats, no breaks', () => {
    const detail = episodeDetailView({ episode: row, timelines: rewrittenEpisode(), merged: null, vocab: null });
    expect(detail.samples).toEqual([]);
    expect(detail.stats).toBeNull();
    expect(detail.calls.every((c) => c.breakCause === null && c.sampleIndex === null)).toBe(true);
  });
});
