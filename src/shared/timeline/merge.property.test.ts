// Property tests of timeline merging over random multi-turn, multi-agent episodes: trained
// exactly once, exact ids/logprobs/context, `none` reproduces the calls, order independence,
// tree packing equivalent to the linear chains, and consistent statistics.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeTimelines } from './merge';
import { packGroup } from './tree-pack';
import { unpackTree } from './tree-utils';
import type { MatchLevel, MergedSample, Timeline } from './types';
import { episodesArb, simulateEpisode, stepArb } from './testing/episodes';
import { decode, encode, assistantBody } from './testing/fake-chat';
import { checkTokenContext, checkTrainedOnce, trainedOccurrences } from './testing/invariants';

const RUNS = { numRuns: 150 };
const levels: MatchLevel[] = ['token', 'text'];
const sumOutputs = (calls: readonly Timeline[]): number => calls.reduce((n, t) => n + t.outputIds.length, 0);
const shuffledCalls = (calls: Timeline[], keys: number[]): Timeline[] =>
  calls
    .map((t, i) => ({ t, k: keys[i % Math.max(1, keys.length)] ?? 0, i }))
    .sort((a, b) => a.k - b.k || b.i - a.i)
    .map((x) => x.t);

/** True when the call's sampled tokens differ from the tokenizer's segmentation (drift). */
const drifted = (t: Timeline): boolean => {
  const canonical = t.finishReason === 'length' ? encode(t.output.content ?? '') : assistantBody(t.output);
  return canonical.some((id, i) => id !== t.outputIds[i]);
};

describe('mergeTimelines properties', () => {
  it('none reproduces every call exactly, one sample each', () => {
    fc.assert(
      fc.property(episodesArb(), (calls) => {
        const { samples, stats } = mergeTimelines(calls, { mode: 'none', level: 'token' });
        expect(samples).toHaveLength(calls.length);
        const byId = new Map(calls.map((t) => [t.id, t]));
        for (const s of samples) {
          const t = byId.get(s.absorbedTimelineIds[0] ?? '');
          if (t === undefined || s.kind !== 'linear') throw new Error('unexpected sample');
          expect(s.tokenIds).toEqual([...t.promptIds, ...t.outputIds]);
          expect(s.lossMask).toEqual([...t.promptIds.map(() => 0), ...t.outputIds.map(() => 1)]);
          expect(s.rolloutLogprobs).toEqual([...t.promptIds.map(() => 0), ...t.outputLogprobs]);
        }
        expect(stats.tokensAfter).toBe(stats.tokensBefore);
        expect(stats.breaks).toEqual([]);
      }),
      RUNS,
    );
  });

  for (const level of levels) {
    it(`linear/${level}: every generated token trained exactly once, unchanged; no other token trained`, () => {
      fc.assert(
        fc.property(episodesArb(), (calls) => {
          const { samples, stats, episodes } = mergeTimelines(calls, { mode: 'linear', level });
          expect(checkTrainedOnce(calls, samples)).toBe(sumOutputs(calls));
          expect(stats.tokensTrained).toBe(stats.tokensGenerated);
          for (const e of episodes) expect(e.breaks).toHaveLength(e.samplesOut - 1);
          if (level === 'token') {
            checkTokenContext(calls, samples);
            expect(stats.tokensAfter).toBeLessThanOrEqual(stats.tokensBefore);
          }
        }),
        RUNS,
      );
    });

    it(`linear/${level}: the result does not depend on the input order`, () => {
      fc.assert(
        fc.property(episodesArb(), fc.array(fc.nat(), { minLength: 1 }), (calls, keys) => {
          const a = mergeTimelines(calls, { mode: 'tree', level });
          const b = mergeTimelines(shuffledCalls(calls, keys), { mode: 'tree', level });
          expect(b).toEqual(a);
          expect(mergeTimelines(shuffledCalls(calls, keys), { mode: 'linear', level })).toEqual(
            mergeTimelines(calls, { mode: 'linear', level }),
          );
        }),
        RUNS,
      );
    });

    it(`tree/${level}: packs the linear chains exactly, with fewer or equal tokens`, () => {
      fc.assert(
        fc.property(episodesArb(), (calls) => {
          const linear = mergeTimelines(calls, { mode: 'linear', level });
          const tree = mergeTimelines(calls, { mode: 'tree', level });
          expect(checkTrainedOnce(calls, tree.samples)).toBe(sumOutputs(calls));
          expect(trainedOccurrences(tree.samples)).toBe(sumOutputs(calls));
          expect(tree.stats.tokensAfter).toBeLessThanOrEqual(linear.stats.tokensAfter);
          expect(tree.stats.breaks).toEqual(linear.stats.breaks);
          if (level === 'token') checkTokenContext(calls, tree.samples);
          // Every chain is a root path of a tree of its episode.
          const paths = tree.samples.flatMap((s) => unpackTree(s).map((p) => ({ s, tokens: p.tokenIds })));
          for (const chain of linear.samples) {
            if (chain.kind !== 'linear') throw new Error('linear mode gives linear samples');
            const holder = paths.find(
              ({ s, tokens }) =>
                (s.kind === 'tree' ? s.episodeIds : [s.episodeId]).includes(chain.episodeId) &&
                chain.tokenIds.every((id, i) => tokens[i] === id),
            );
            expect(holder).toBeDefined();
          }
        }),
        RUNS,
      );
    });
  }

  it('text: the spliced sample renders the same text as the last call (drift-free trailers)', () => {
    fc.assert(
      fc.property(episodesArb(), (calls) => {
        const byId = new Map(calls.map((t) => [t.id, t]));
        for (const s of mergeTimelines(calls, { mode: 'linear', level: 'text' }).samples) {
          const chain = s.absorbedTimelineIds.map((id) => byId.get(id));
          const last = chain[chain.length - 1];
          if (last === undefined) throw new Error('empty chain');
          // A truncated, drifted call with no stopped call to learn the closing from loses its closing.
          const learnable = chain.some((t) => t !== last && t?.finishReason === 'stop');
          if (chain.some((t) => t !== last && t?.finishReason === 'length' && drifted(t)) && !learnable) continue;
          expect(decode(s.tokenIds)).toBe(decode([...last.promptIds, ...last.outputIds]));
        }
      }),
      RUNS,
    );
  });

  it('a clean single-agent conversation merges into one sample at both levels', () => {
    const cleanStep = stepArb.map((s) => ({
      ...s,
      agent: 0,
      action: 'continue' as const,
      drift: false,
      truncated: false,
    }));
    fc.assert(
      fc.property(fc.array(cleanStep, { minLength: 1, maxLength: 15 }), (steps) => {
        const calls = simulateEpisode({ agents: 1, steps }, 'e0');
        const last = calls[calls.length - 1];
        for (const level of levels) {
          const { samples, stats } = mergeTimelines(calls, { mode: 'linear', level });
          expect(samples).toHaveLength(1);
          expect(stats.breaks).toEqual([]);
          expect(samples[0]?.tokenIds).toEqual([...(last?.promptIds ?? []), ...(last?.outputIds ?? [])]);
        }
      }),
      RUNS,
    );
  });

  it('a drifted conversation breaks on token_drift at token level and stays one chain at text level', () => {
    const driftStep = stepArb.map((s) => ({ ...s, agent: 0, action: 'continue' as const, truncated: false }));
    fc.assert(
      fc.property(fc.array(driftStep, { minLength: 1, maxLength: 15 }), (steps) => {
        const calls = simulateEpisode({ agents: 1, steps }, 'e0');
        const token = mergeTimelines(calls, { mode: 'linear', level: 'token' });
        const driftedBefore = calls.slice(0, -1).filter(drifted).length;
        expect(token.stats.breakCounts.token_drift).toBe(driftedBefore);
        expect(token.stats.breaks.length).toBe(driftedBefore);
        const text = mergeTimelines(calls, { mode: 'linear', level: 'text' });
        expect(text.samples).toHaveLength(1);
        expect(checkTrainedOnce(calls, text.samples)).toBe(sumOutputs(calls));
      }),
      RUNS,
    );
  });

  it('packGroup across episodes: exact, never larger, shares the common prefix', () => {
    fc.assert(
      fc.property(episodesArb(4, 6), (calls) => {
        const linear = mergeTimelines(calls, { mode: 'linear', level: 'token' });
        const packed: MergedSample[] = packGroup(linear.samples);
        expect(checkTrainedOnce(calls, packed)).toBe(sumOutputs(calls));
        checkTokenContext(calls, packed);
        const after = packed.reduce((n, s) => n + s.tokenIds.length, 0);
        expect(after).toBeLessThanOrEqual(linear.stats.tokensAfter);
      }),
      RUNS,
    );
  });
});
