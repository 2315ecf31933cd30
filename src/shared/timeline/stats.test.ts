// Tests of merge statistics: per-episode numbers and their sum over a step.
import { describe, expect, it } from 'vitest';
import { mergeTimelines } from './merge';
import { emptyStats, sumStats } from './stats';
import { MergeStatsSchema } from './types';
import { conversation, say, SYS } from './testing/scenes';
import { user } from '../chat';

describe('merge statistics', () => {
  const calls = [
    ...conversation('e1', [
      { reply: say('one') },
      { reply: say('two') },
      { reply: say('x'), messages: [SYS, user('again')] },
    ]),
    ...conversation('e2', [
      { reply: say('three') },
      { reply: say('the answer then'), driftSeed: 1 },
      { reply: say('five') },
    ]),
  ];

  it('reports per-episode numbers and sums them per step', () => {
    const { stats, episodes } = mergeTimelines(calls, { mode: 'linear', level: 'token' });
    expect(episodes.map((e) => [e.episodeId, e.callsIn, e.samplesOut, e.breaks.map((b) => b.cause)])).toEqual([
      ['e1', 3, 2, ['rewritten_history']],
      ['e2', 3, 2, ['token_drift']],
    ]);
    expect(stats).toEqual(sumStats(episodes));
    expect(stats.breakCounts).toEqual({
      token_drift: 1,
      rewritten_history: 1,
      different_agent: 0,
      different_tools: 0,
      template_dropped_reasoning: 0,
    });
    expect(stats.tokensBefore).toBe(calls.reduce((n, t) => n + t.promptIds.length + t.outputIds.length, 0));
    expect(stats.tokensTrained).toBe(stats.tokensGenerated);
    expect(stats.compressionRatio).toBeCloseTo(stats.tokensBefore / stats.tokensAfter);
    expect(MergeStatsSchema.safeParse(stats).success).toBe(true);
  });

  it('sums to the identity on nothing', () => {
    expect(sumStats([])).toEqual(emptyStats());
    const { stats } = mergeTimelines(calls, { mode: 'tree', level: 'text' });
    expect(sumStats([stats, emptyStats()])).toEqual(stats);
  });
});
