import { afterEach, describe, expect, it } from 'vitest';
import { newRun, tempStore, type TempStore } from './test-support';

describe('inner-loop tables', () => {
  let t: TempStore | null = null;
  afterEach(() => t?.cleanup());

  it('marks quarantined episodes, releases them, and re-marks them', () => {
    t = tempStore();
    t.store.createRun(newRun('r1'));
    t.store.markQuarantined('r1', 'v1', ['a', 'b'], 10);
    t.store.markReleased('r1', ['a'], 20);
    expect(t.store.quarantineMarks('r1')).toEqual([
      { episodeId: 'a', codeVersion: 'v1', quarantinedAt: 10, releasedAt: 20 },
      { episodeId: 'b', codeVersion: 'v1', quarantinedAt: 10, releasedAt: null },
    ]);
    t.store.markQuarantined('r1', 'v1', ['a'], 30);
    expect(t.store.quarantineMarks('r1').find((m) => m.episodeId === 'a')?.releasedAt).toBeNull();
  });

  it('keeps probes by name with their points over weight versions', () => {
    t = tempStore();
    t.store.createRun(newRun('r1'));
    const spec = { episodeId: 'e', callIndex: 1, k: 4, temperature: 1, contains: '<tool_call>' };
    const id = t.store.putProbe('r1', 'calls the tool', spec, 1);
    expect(t.store.putProbe('r1', 'calls the tool', { ...spec, k: 8 }, 2)).toBe(id);
    expect(t.store.listProbes('r1')).toEqual([{ id, name: 'calls the tool', spec: { ...spec, k: 8 }, createdAt: 1 }]);
    t.store.putProbePoint(id, { weightVersion: 3, at: 5, k: 8, hits: 6, meanLogprob: -0.5 }, { any: 1 });
    t.store.putProbePoint(id, { weightVersion: 1, at: 4, k: 8, hits: 2, meanLogprob: null }, {});
    expect(t.store.probePoints(id).map((p) => [p.weightVersion, p.hits])).toEqual([
      [1, 2],
      [3, 6],
    ]);
    expect(() =>
      t!.store.putProbePoint(999, { weightVersion: 1, at: 1, k: 1, hits: 0, meanLogprob: null }, {}),
    ).toThrow(/no probe/);
  });

  it('stores regression figures with their curves, oldest commit first, and refuses a bad commit', () => {
    t = tempStore();
    const base = { subject: 's', bench: 'train', figure: 'reward', seed: 0, machine: 'm', ranAt: 9, curve: null };
    t.store.putRegressResults([
      { ...base, commit: 'bbbbbbb', commitDate: 2, value: 0.5, curve: [0.1, 0.5] },
      { ...base, commit: 'aaaaaaa', commitDate: 1, value: 0.4 },
    ]);
    expect(t.store.regressResults('train').map((r) => [r.commit, r.curve])).toEqual([
      ['aaaaaaa', null],
      ['bbbbbbb', [0.1, 0.5]],
    ]);
    expect(t.store.regressResults('merge')).toEqual([]);
    expect(() => t!.store.putRegressResults([{ ...base, commit: 'not a sha', commitDate: 1, value: 1 }])).toThrow();
  });
});
