// Tests of tree packing: shared prefixes, weights for identical trained tokens, no sharing across
// episodes, linear output for unbranched trees, unpacking, the attention helpers and the schema.
import { describe, expect, it } from 'vitest';
import { user } from '../chat';
import { mergeTimelines } from './merge';
import { packGroup } from './tree-pack';
import { sampleWeights, tokenAdvantages, treeAttentionAncestors, treeSubtreeEnds, unpackTree } from './tree-utils';
import { TreeSampleSchema, type MergedSample, type Timeline, type TreeSample } from './types';
import { fakeCall } from './testing/fake-chat';
import { checkTokenContext, checkTrainedOnce, trainedOccurrences } from './testing/invariants';
import { ASK, SYS, conversation, historyAfter, say } from './testing/scenes';

const tree = (s: MergedSample | undefined): TreeSample => {
  if (s?.kind !== 'tree') throw new Error('expected a tree sample');
  return s;
};
const outputs = (calls: readonly Timeline[]): number => calls.reduce((n, t) => n + t.outputIds.length, 0);

describe('tree packing within an episode', () => {
  const calls = conversation('e', [
    { reply: say('one') },
    { reply: say('two') },
    { reply: say('other'), messages: [SYS, ASK, say('one'), user('next 0'), user('changed my mind')] },
  ]);

  it('packs diverging chains into one tree that unpacks to the linear chains', () => {
    const lin = mergeTimelines(calls, { mode: 'linear', level: 'token' });
    const packed = mergeTimelines(calls, { mode: 'tree', level: 'token' });
    expect(lin.samples).toHaveLength(2);
    expect(packed.samples).toHaveLength(1);
    const t = tree(packed.samples[0]);
    expect(TreeSampleSchema.safeParse(t).success).toBe(true);
    expect(unpackTree(t).map((p) => p.tokenIds)).toEqual(lin.samples.map((s) => s.tokenIds));
    for (const p of unpackTree(t)) expect(p.positions).toEqual(p.tokenIds.map((_, i) => i));
    expect(t.tokenIds.length).toBeLessThan(lin.stats.tokensAfter);
    expect(packed.stats.tokensAfter).toBe(t.tokenIds.length);
    expect(checkTrainedOnce(calls, packed.samples)).toBe(outputs(calls));
    checkTokenContext(calls, packed.samples);
  });

  it('trains a call output once even where another chain resends it as history', () => {
    // Chain 2 resends call 0's reply as history: in the tree that token is trained once, by call 0.
    const t = tree(mergeTimelines(calls, { mode: 'tree', level: 'token' }).samples[0]);
    expect(t.weights.reduce((a, b) => a + b, 0)).toBe(outputs(calls));
    expect(t.weights.every((w) => w <= 1)).toBe(true);
  });

  it('counts identical retried outputs with weights', () => {
    const [a] = conversation('e', [{ reply: say('the answer') }]) as [Timeline];
    const retry: Timeline = { ...a, id: 'e-1', callIndex: 1, createdAt: a.createdAt + 1 };
    const { samples, stats } = mergeTimelines([a, retry], { mode: 'tree', level: 'token' });
    expect(stats.breaks.map((b) => b.cause)).toEqual(['rewritten_history']);
    expect(samples).toHaveLength(1);
    const t = tree(samples[0]);
    expect(t.tokenIds).toHaveLength(a.promptIds.length + a.outputIds.length);
    expect(t.weights.slice(a.promptIds.length)).toEqual(a.outputIds.map(() => 2));
    expect(stats.tokensTrained).toBe(a.outputIds.length);
    expect(stats.tokensGenerated).toBe(2 * a.outputIds.length);
    expect(checkTrainedOnce([a, retry], samples)).toBe(2 * a.outputIds.length);
  });

  it('does not share a retried output whose logprobs differ', () => {
    const [a] = conversation('e', [{ reply: say('the answer') }]) as [Timeline];
    const retry: Timeline = { ...a, id: 'e-1', callIndex: 1, outputLogprobs: a.outputLogprobs.map((x) => x - 0.001) };
    const t = tree(mergeTimelines([a, retry], { mode: 'tree', level: 'token' }).samples[0]);
    expect(t.tokenIds).toHaveLength(a.promptIds.length + 2 * a.outputIds.length);
    expect(t.weights.every((w) => w <= 1)).toBe(true);
  });

  it('returns an unbranched episode as a linear sample', () => {
    const straight = conversation('e', [{ reply: say('one') }, { reply: say('two') }]);
    const { samples } = mergeTimelines(straight, { mode: 'tree', level: 'token' });
    expect(samples.map((s) => s.kind)).toEqual(['linear']);
    expect(samples).toEqual(mergeTimelines(straight, { mode: 'linear', level: 'token' }).samples);
  });
});

describe('packGroup across the rollouts of a task group', () => {
  const rollouts = Array.from({ length: 8 }, (_, i) =>
    fakeCall({
      id: `r${i}`,
      episodeId: `ep${i}`,
      callIndex: 0,
      messages: [SYS, user(`a long shared task prompt ${'x'.repeat(200)}`)],
      reply: say(`guess ${i}`),
    }),
  );

  it('shares the prompt once and keeps every rollout exact', () => {
    const lin = mergeTimelines(rollouts, {
      mode: 'linear',
      level: 'token',
      taskIds: Object.fromEntries(rollouts.map((r) => [r.episodeId, 'task'])),
    });
    const packed = packGroup(lin.samples);
    expect(packed).toHaveLength(1);
    const t = tree(packed[0]);
    expect(t.episodeIds).toEqual(rollouts.map((r) => r.episodeId));
    expect(t.taskId).toBe('task');
    const prompt = rollouts[0]?.promptIds.length ?? 0;
    expect(t.tokenIds.length).toBe(prompt + outputs(rollouts)); // trained tokens of different episodes never merge
    expect(lin.stats.tokensAfter / t.tokenIds.length).toBeGreaterThan(5);
    expect(checkTrainedOnce(rollouts, packed)).toBe(outputs(rollouts));
    checkTokenContext(rollouts, packed);
  });

  it('never shares trained tokens across episodes, even identical ones', () => {
    const twin = (episodeId: string): Timeline => ({ ...(rollouts[0] as Timeline), id: `${episodeId}-c`, episodeId });
    const lin = mergeTimelines([twin('x'), twin('y')], { mode: 'linear', level: 'token' });
    const t = tree(packGroup(lin.samples)[0]);
    const out = rollouts[0]?.outputIds.length ?? 0;
    expect(t.tokenIds).toHaveLength((rollouts[0]?.promptIds.length ?? 0) + 2 * out);
    expect(trainedOccurrences([t])).toBe(2 * out);
    expect(t.weights.every((w) => w <= 1)).toBe(true);
  });

  it('re-packs tree samples without changing them', () => {
    const calls = [
      ...conversation('e', [{ reply: say('one') }, { reply: say('two'), messages: [SYS, user('other')] }]),
    ];
    const once = mergeTimelines(calls, { mode: 'tree', level: 'token' }).samples;
    expect(packGroup(once)).toEqual(once);
  });
});

describe('tree helpers', () => {
  //      0
  //    1   4
  //   2 3   5
  const parents = [-1, 0, 1, 1, 0, 4];

  it('subtree ends give exactly the ancestor mask', () => {
    const ends = treeSubtreeEnds(parents);
    expect(ends).toEqual([6, 4, 3, 4, 6, 6]);
    const ancestors = treeAttentionAncestors(parents);
    expect(ancestors[3]).toEqual([0, 1, 3]);
    expect(ancestors[5]).toEqual([0, 4, 5]);
    parents.forEach((_, i) =>
      parents.forEach((__, j) => {
        expect(j <= i && i < (ends[j] ?? 0)).toBe(ancestors[i]?.includes(j));
      }),
    );
  });

  it('the schema rejects bad layouts, positions, weights and masks', () => {
    const good: TreeSample = {
      kind: 'tree',
      episodeIds: ['e'],
      tokenIds: [5, 6, 7, 8, 9, 10],
      parents,
      positions: [0, 1, 2, 2, 1, 2],
      lossMask: [0, 0, 1, 1, 0, 1],
      rolloutLogprobs: [0, 0, -1, -2, 0, -3],
      weights: [0, 0, 1, 1, 0, 1],
      spans: [
        { timelineId: 'a', episodeId: 'e', weightVersion: 0, start: 2, end: 4 },
        { timelineId: 'b', episodeId: 'e', weightVersion: 0, start: 5, end: 6 },
      ],
      absorbedTimelineIds: ['a', 'b'],
    };
    expect(TreeSampleSchema.safeParse(good).success).toBe(true);
    const bad = (patch: Partial<TreeSample>): boolean => TreeSampleSchema.safeParse({ ...good, ...patch }).success;
    expect(bad({ parents: [-1, 0, 1, 0, 1, 4] })).toBe(false); // 4's parent 1 is no longer on the path
    expect(bad({ positions: [0, 1, 2, 2, 1, 1] })).toBe(false);
    expect(bad({ weights: [0, 0, 2, 1, 0, 1] })).toBe(false);
    expect(bad({ lossMask: [1, 0, 1, 1, 0, 1] })).toBe(false);
    expect(bad({ rolloutLogprobs: [0, 0.5, -1, -2, 0, -3] })).toBe(false);
  });

  it('unpacks a linear sample to itself', () => {
    const [a, b] = conversation('e', [{ reply: say('one') }, { reply: say('two') }]) as [Timeline, Timeline];
    const [s] = mergeTimelines([a, { ...b, messages: historyAfter(a, user('next 0')) }], {
      mode: 'linear',
      level: 'token',
    }).samples;
    if (s === undefined) throw new Error('no sample');
    expect(unpackTree(s)).toEqual([
      {
        tokenIds: s.tokenIds,
        lossMask: s.lossMask,
        rolloutLogprobs: s.rolloutLogprobs,
        positions: s.tokenIds.map((_, i) => i),
        indices: s.tokenIds.map((_, i) => i),
      },
    ]);
  });
});

describe('weights and advantages for the engine', () => {
  it('gives per-token advantages by the episode of each trained token', () => {
    const rollouts = ['x', 'y'].map((episodeId, i) =>
      fakeCall({ id: `${episodeId}-c`, episodeId, callIndex: 0, messages: [SYS, ASK], reply: say(`guess ${i}`) }),
    );
    const [t] = packGroup(mergeTimelines(rollouts, { mode: 'linear', level: 'token' }).samples);
    if (t === undefined) throw new Error('no sample');
    const advantages = tokenAdvantages(t, { x: 1.5, y: -0.5 });
    const weights = sampleWeights(t);
    t.spans.forEach((span) => {
      for (let i = span.start; i < span.end; i++) expect(advantages[i]).toBe(span.episodeId === 'x' ? 1.5 : -0.5);
    });
    expect(advantages.filter((a, i) => a !== 0 && weights[i] === 0)).toEqual([]);
    expect(weights.reduce((a, b) => a + b, 0)).toBe(outputs(rollouts));
  });
});
