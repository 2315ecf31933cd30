// Merge statistics: calls in, samples out, tokens before/after/trained, compression ratio and the
// chain breaks by cause — per episode, and summed over a step with `sumStats`.
import {
  BREAK_CAUSES,
  type BreakCause,
  type ChainBreak,
  type MergedSample,
  type MergeStats,
  type Timeline,
} from './types';

function countBreaks(breaks: readonly ChainBreak[]): Record<BreakCause, number> {
  const counts: Record<BreakCause, number> = {
    token_drift: 0,
    rewritten_history: 0,
    different_agent: 0,
    different_tools: 0,
    template_dropped_reasoning: 0,
  };
  for (const b of breaks) counts[b.cause] += 1;
  return counts;
}

const ratio = (before: number, after: number): number => (after > 0 ? before / after : 1);

export function emptyStats(): MergeStats {
  return {
    episodes: 0,
    callsIn: 0,
    samplesOut: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    tokensTrained: 0,
    tokensGenerated: 0,
    compressionRatio: 1,
    breaks: [],
    breakCounts: countBreaks([]),
  };
}

/** Statistics of one merge of `calls` into `samples`. */
export function computeStats(
  calls: readonly Timeline[],
  samples: readonly MergedSample[],
  breaks: readonly ChainBreak[],
  episodes: number,
): MergeStats {
  let tokensBefore = 0;
  let tokensGenerated = 0;
  for (const t of calls) {
    tokensBefore += t.promptIds.length + t.outputIds.length;
    tokensGenerated += t.outputIds.length;
  }
  let tokensAfter = 0;
  let tokensTrained = 0;
  for (const s of samples) {
    tokensAfter += s.tokenIds.length;
    for (const m of s.lossMask) tokensTrained += m;
  }
  return {
    episodes,
    callsIn: calls.length,
    samplesOut: samples.length,
    tokensBefore,
    tokensAfter,
    tokensTrained,
    tokensGenerated,
    compressionRatio: ratio(tokensBefore, tokensAfter),
    breaks: [...breaks],
    breakCounts: countBreaks(breaks),
  };
}

/** Sums statistics (e.g. the episodes of one step); the ratio is recomputed from the sums. */
export function sumStats(list: readonly MergeStats[]): MergeStats {
  const total = emptyStats();
  for (const s of list) {
    total.episodes += s.episodes;
    total.callsIn += s.callsIn;
    total.samplesOut += s.samplesOut;
    total.tokensBefore += s.tokensBefore;
    total.tokensAfter += s.tokensAfter;
    total.tokensTrained += s.tokensTrained;
    total.tokensGenerated += s.tokensGenerated;
    total.breaks.push(...s.breaks);
  }
  for (const cause of BREAK_CAUSES) total.breakCounts[cause] = list.reduce((n, s) => n + s.breakCounts[cause], 0);
  total.compressionRatio = ratio(total.tokensBefore, total.tokensAfter);
  return total;
}
