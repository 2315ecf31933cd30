// Scale check: a 100-turn episode with long tool outputs (millions of input tokens) merges at both
// levels and in tree mode with the expected compression. Not timed (timed unit tests flake on shared
// machines): the merge benchmark (`npm run bench -- merge`) measures how its cost grows.
import { describe, expect, it } from 'vitest';
import { toolResult, type ChatMessage } from '../chat';
import { mergeTimelines } from './merge';
import type { MergeOptions, Timeline } from './types';
import { TOOLS_A } from './testing/episodes';
import { fakeCall } from './testing/fake-chat';
import { ASK, SYS, say } from './testing/scenes';

function longEpisode(turns: number, toolOutputChars: number): Timeline[] {
  const calls: Timeline[] = [];
  let history: ChatMessage[] = [SYS, ASK];
  for (let k = 0; k < turns; k++) {
    const call = fakeCall({
      id: `t${k}`,
      episodeId: 'long',
      callIndex: k,
      messages: history,
      tools: TOOLS_A,
      reply: say(`then calc ${k}`, ['calc', JSON.stringify({ expression: `${k}+${k}` })]),
      driftSeed: k % 10 === 9 ? k : undefined, // some drifted turns: token level breaks there
    });
    calls.push(call);
    history = [
      ...history,
      call.output,
      toolResult('call_0_calc', `${k}: ${'the answer is here '.repeat(toolOutputChars / 19)}`),
    ];
  }
  return calls;
}

describe('merge at scale', () => {
  const calls = longEpisode(100, 1_000);
  const total = calls.reduce((n, t) => n + t.promptIds.length + t.outputIds.length, 0);

  const cases: [string, MergeOptions][] = [
    ['linear/token', { mode: 'linear', level: 'token' }],
    ['linear/text', { mode: 'linear', level: 'text' }],
    ['tree/token', { mode: 'tree', level: 'token' }],
    ['tree/text', { mode: 'tree', level: 'text' }],
  ];
  for (const [name, options] of cases) {
    it(`${name}: 100 turns, ${Math.round(total / 1000)}k input tokens, merges with every generated token trained`, () => {
      expect(total).toBeGreaterThan(1_000_000);
      const { stats } = mergeTimelines([...calls].reverse(), options);
      expect(stats.tokensTrained).toBe(stats.tokensGenerated);
      expect(stats.compressionRatio).toBeGreaterThan(options.level === 'text' ? 40 : 5);
      expect(stats.samplesOut).toBe(options.level === 'text' || options.mode === 'tree' ? 1 : 10);
    });
  }
});
