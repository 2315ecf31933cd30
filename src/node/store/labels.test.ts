import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversation, say } from '../../shared/timeline/testing/scenes';
import { RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC, type RewardModelManifest } from '../../shared/reward-model';
import { WorkbenchError } from '../../shared/workbench-api';
import { openStore } from './store';
import { episodeInput, newRun, tempStore, type TempStore } from './test-support';
import { pairKey } from './rewards-types';

let t: TempStore;
beforeEach(() => {
  t = tempStore();
  t.store.createRun(newRun('r1'));
  t.store.putEpisode('r1', episodeInput('e1', { taskId: 'A', codeVersion: 'v1' }));
  t.store.putEpisode('r1', episodeInput('e2', { taskId: 'A', codeVersion: 'v2' }));
  t.store.putEpisode('r1', episodeInput('e3', { taskId: 'B' }));
});
afterEach(() => t.cleanup());

const meta = (author = 'ana', createdAt = 10) => ({ author, source: 'inspector', createdAt });
const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof WorkbenchError ? err.code : 'other';
  }
  return undefined;
};

describe('labels', () => {
  it("stores good/bad with who/when and the episode's task and code version; a new label replaces the author's old one", () => {
    const { label, replaced } = t.store.putLabel('r1', { kind: 'good', episodeId: 'e1', ...meta() });
    expect(replaced).toBe(false);
    expect(label).toMatchObject({
      kind: 'good',
      episodeId: 'e1',
      otherEpisodeId: null,
      taskId: 'A',
      codeVersion: 'v1',
      author: 'ana',
      source: 'inspector',
      createdAt: 10,
    });
    expect(t.store.putLabel('r1', { kind: 'bad', episodeId: 'e1', ...meta('ana', 20) }).replaced).toBe(true);
    t.store.putLabel('r1', { kind: 'good', episodeId: 'e1', ...meta('bo', 30) });
    expect(t.store.listLabels('r1', 'e1').map((l) => [l.author, l.kind])).toEqual([
      ['bo', 'good'],
      ['ana', 'bad'],
    ]);
    expect(t.store.listLabels('r1', undefined, 1).map((l) => l.author)).toEqual(['bo']);
    expect(t.store.labelSummary('r1')).toEqual({
      good: 1,
      bad: 1,
      pairs: 0,
      labelledEpisodes: 1,
      authors: ['ana', 'bo'],
    });
  });

  it('stores a preference between two episodes of one task, either order, one per author', () => {
    const first = t.store.putLabel('r1', { kind: 'prefer', episodeId: 'e2', otherEpisodeId: 'e1', ...meta() }).label;
    expect(first).toMatchObject({
      kind: 'prefer',
      episodeId: 'e2',
      otherEpisodeId: 'e1',
      codeVersion: 'v2',
      otherCodeVersion: 'v1',
      taskId: 'A',
    });
    // The reverse judgement by the same author replaces it.
    const flipped = t.store.putLabel('r1', {
      kind: 'prefer',
      episodeId: 'e1',
      otherEpisodeId: 'e2',
      ...meta('ana', 11),
    });
    expect(flipped.replaced).toBe(true);
    expect(t.store.listLabels('r1').map((l) => [l.episodeId, l.otherEpisodeId])).toEqual([['e1', 'e2']]);
    expect(t.store.listLabels('r1', 'e2')).toHaveLength(1);
    const sets = t.store.labelledSets('r1');
    expect(sets.pairs.has(pairKey('e2', 'e1'))).toBe(true);
    expect(sets.points.size).toBe(0);
    expect(t.store.labelSummary('r1')).toMatchObject({ pairs: 1, labelledEpisodes: 2 });
  });

  it('refuses unknown episodes, pairs across tasks, and bad input, writing nothing', () => {
    expect(code(() => t.store.putLabel('r1', { kind: 'good', episodeId: 'nope', ...meta() }))).toBe('not_found');
    expect(
      code(() => t.store.putLabel('r1', { kind: 'prefer', episodeId: 'e1', otherEpisodeId: 'e3', ...meta() })),
    ).toBe('invalid_input');
    expect(
      code(() => t.store.putLabel('r1', { kind: 'prefer', episodeId: 'e1', otherEpisodeId: 'e1', ...meta() })),
    ).toBe('invalid_input');
    expect(code(() => t.store.putLabel('r1', { kind: 'good', episodeId: 'e1', otherEpisodeId: 'e2', ...meta() }))).toBe(
      'invalid_input',
    );
    expect(code(() => t.store.putLabel('r1', { kind: 'good', episodeId: 'e1', ...meta('') }))).toBe('invalid_input');
    expect(code(() => t.store.deleteLabel('r1', 99))).toBe('not_found');
    expect(t.store.listLabels('r1')).toEqual([]);
  });

  it('deletes, and survives reopening the database', () => {
    const a = t.store.putLabel('r1', { kind: 'good', episodeId: 'e1', ...meta() }).label;
    t.store.putLabel('r1', { kind: 'bad', episodeId: 'e3', ...meta() });
    t.store.deleteLabel('r1', a.id);
    t.store.close();
    const again = openStore(t.path);
    try {
      expect(again.listLabels('r1').map((l) => l.episodeId)).toEqual(['e3']);
    } finally {
      again.close();
    }
  });
});

describe('episode metrics and reward models', () => {
  it('keeps the metrics an episode reported and pairs two of them for the chart', () => {
    t.store.putEpisode('r1', episodeInput('e4', { createdAt: 500 }));
    t.store.putEpisodeMetrics('r1', 'e1', { [RM_SCORE_METRIC]: 1.5, [VERIFIABLE_REWARD_METRIC]: 1, turns: 2 });
    t.store.putEpisodeMetrics('r1', 'e4', { [RM_SCORE_METRIC]: -0.5, [VERIFIABLE_REWARD_METRIC]: 0 });
    t.store.putEpisodeMetrics('r1', 'e2', { turns: 3 });
    expect(t.store.episodeMetrics('r1', 'e2')).toEqual({ turns: 3 });
    expect(t.store.episodeMetrics('r1', 'e3')).toBeNull();
    const pairs = t.store.metricPairs('r1', RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC, 10);
    expect(pairs.map((p) => [p.episodeId, p.x, p.y])).toEqual([
      ['e4', -0.5, 0],
      ['e1', 1.5, 1],
    ]);
    expect(t.store.metricPairs('r1', RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC, 1).map((p) => p.episodeId)).toEqual([
      'e1',
    ]);
    expect(code(() => t.store.metricPairs('r1', "x'); DROP TABLE labels; --", 'y', 1))).toBe('invalid_input');
    expect(code(() => t.store.putEpisodeMetrics('r1', 'nope', { a: 1 }))).toBe('not_found');
  });

  it('records reward models once per version with their manifest', () => {
    const manifest = fakeManifest(1);
    t.store.putRewardModel('r1', { version: 1, folder: '/rm/v1', sha256: 'a'.repeat(64), createdAt: 5, manifest });
    expect(
      code(() =>
        t.store.putRewardModel('r1', { version: 1, folder: '/rm/v1b', sha256: 'b'.repeat(64), createdAt: 6, manifest }),
      ),
    ).toBe('conflict');
    t.store.setRewardModelDeployed('r1', 1, 7);
    expect(t.store.listRewardModels('r1')).toEqual([
      {
        version: 1,
        folder: '/rm/v1',
        sha256: 'a'.repeat(64),
        createdAt: 5,
        deployedAt: 7,
        loss: 'pairwise',
        heldoutAccuracy: 0.8,
        heldoutLabels: 10,
        onnxMaxAbsDiff: 1e-7,
        pointLabels: 3,
        pairLabels: 2,
        trainSeconds: 4,
        base: '/base',
      },
    ]);
    expect(t.store.getRewardModel('r1', 1).manifest.version).toBe(1);
    expect(code(() => t.store.getRewardModel('r1', 2))).toBe('not_found');
  });

  it('keeps labels of episodes with timelines stored later', () => {
    t.store.putLabel('r1', { kind: 'good', episodeId: 'e1', ...meta() });
    t.store.putEpisodeTimelines('r1', 'e1', conversation('e1', [{ reply: say('one') }]), null);
    expect(t.store.listLabels('r1')).toHaveLength(1);
  });
});

export function fakeManifest(version: number): RewardModelManifest {
  const acc = { pairAccuracy: 0.8, pointAccuracy: null, pairs: 10, points: 0 };
  return {
    format: 'agentjet-reward-model/1',
    version,
    createdAt: 5,
    base: '/base',
    loss: 'pairwise',
    maxLength: 1024,
    architecture: 'Qwen2ForSequenceClassification',
    padTokenId: 0,
    truncation: 'left',
    onnx: {
      file: 'model.onnx',
      inputs: ['input_ids', 'attention_mask'],
      output: 'scores',
      maxAbsDiff: 1e-7,
      exportSeconds: 3,
    },
    tokenizer: { tokenizer: 'tokenizer.json', config: 'tokenizer_config.json', chatTemplate: 'chat_template.jinja' },
    training: { conversations: 5, pointLabels: 3, pairLabels: 2, steps: 9, seconds: 4 },
    metrics: { heldoutAccuracy: 0.8, heldout: acc, train: acc },
    scoreStats: { mean: 0, std: 1 },
    files: { 'model.onnx': 'c'.repeat(64) },
  };
}
