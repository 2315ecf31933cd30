// The inspector's view of one episode (contract `EpisodeDetail`), assembled from stored data:
// one CallView per timeline (prompt tokens as context, output tokens as trained, with logprobs),
// the chain break each call caused and the sample that trains it, and one SampleView per merged
// sample. Pure: data in, data out.
import type { TrainedInfo } from '../../shared/swarm-protocol';
import { compareCalls, type MergedSample, type MergeStats, type Timeline } from '../../shared/timeline';
import type { CallView, EpisodeDetail, EpisodeRow, SampleView, TokenView } from '../../shared/workbench-api';

/** Token id → its text: the run's vocabulary, or `⟨id⟩` where there is none (or no piece). */
export function tokenText(vocab: readonly string[] | null, id: number): string {
  return vocab?.[id] ?? `⟨${id}⟩`;
}

export function callView(
  t: Timeline,
  vocab: readonly string[] | null,
  stats: MergeStats | null,
  samples: readonly MergedSample[],
): CallView {
  const prompt: TokenView[] = t.promptIds.map((id) => ({ id, text: tokenText(vocab, id), mask: 0, logprob: null }));
  const output: TokenView[] = t.outputIds.map((id, i) => ({
    id,
    text: tokenText(vocab, id),
    mask: 1,
    logprob: t.outputLogprobs[i] ?? null,
  }));
  const sampleIndex = samples.findIndex((s) => s.absorbedTimelineIds.includes(t.id));
  return {
    timelineId: t.id,
    callIndex: t.callIndex,
    agent: t.agent,
    weightVersion: t.weightVersion,
    finishReason: t.finishReason,
    tokens: [...prompt, ...output],
    promptTokens: t.promptIds.length,
    breakCause: stats?.breaks.find((b) => b.timelineId === t.id)?.cause ?? null,
    sampleIndex: sampleIndex === -1 ? null : sampleIndex,
  };
}

export function sampleView(s: MergedSample, index: number, vocab: readonly string[] | null): SampleView {
  return {
    index,
    kind: s.kind,
    tokens: s.tokenIds.map((id, i) => {
      const mask = s.lossMask[i] === 1 ? 1 : 0;
      return { id, text: tokenText(vocab, id), mask, logprob: mask === 1 ? (s.rolloutLogprobs[i] ?? null) : null };
    }),
    timelineIds: [...s.absorbedTimelineIds],
    parents: s.kind === 'tree' ? [...s.parents] : null,
  };
}

export interface EpisodeDetailInput {
  episode: EpisodeRow;
  timelines: readonly Timeline[];
  merged: { samples: readonly MergedSample[]; stats: MergeStats; trained?: TrainedInfo | null } | null;
  vocab: readonly string[] | null;
}

export function episodeDetailView({ episode, timelines, merged, vocab }: EpisodeDetailInput): EpisodeDetail {
  const samples = merged?.samples ?? [];
  const stats = merged?.stats ?? null;
  return {
    episode,
    calls: [...timelines].sort(compareCalls).map((t) => callView(t, vocab, stats, samples)),
    samples: samples.map((s, i) => sampleView(s, i, vocab)),
    stats:
      stats === null
        ? null
        : {
            tokensBefore: stats.tokensBefore,
            tokensAfter: stats.tokensAfter,
            compressionRatio: stats.compressionRatio,
            breakCounts: { ...stats.breakCounts },
          },
    trained: merged?.trained ?? null,
  };
}
