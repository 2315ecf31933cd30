// The learned-rewards services on a real store: label episodes (inspector path), export and import the
// labels (all or nothing), the label queue without a reward model, the chart's data, and refusals.
// Training, deploying and the queue ranked by a trained model: src/node/rewards-workbench.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC } from '../../shared/reward-model';
import { fakeCall } from '../../shared/timeline/testing/fake-chat';
import type { WorkbenchEvent } from '../../shared/workbench-api';
import { calcConversations, type LabelledConversation } from '../../sdk/testing/reward-model-fixture';
import { episodeInput, newRun, tempStore, type TempStore } from '../store/test-support';
import { LabelsService } from './labels-service';
import { RewardModelService } from './reward-model-service';

let t: TempStore;
let labels: LabelsService;
let rms: RewardModelService;
let convs: LabelledConversation[];
const events: WorkbenchEvent[] = [];

beforeAll(() => {
  t = tempStore();
  t.store.createRun(newRun('r1', { model: 'builtin' }));
  convs = calcConversations(10, 4, 7);
  convs.forEach((c, i) => {
    t.store.putEpisode(
      'r1',
      episodeInput(c.id, { taskId: c.group, reward: c.success ? 1 : 0, success: c.success, createdAt: 1000 + i }),
    );
    const call = fakeCall({
      id: `${c.id}-0`,
      episodeId: c.id,
      callIndex: 0,
      messages: c.messages.slice(0, -1),
      reply: c.messages.at(-1)!,
      tools: c.tools ?? null,
    });
    t.store.putEpisodeTimelines('r1', c.id, [call], null);
  });
  labels = new LabelsService({ store: t.store, author: 'verifier' });
  rms = new RewardModelService({
    store: t.store,
    dataDir: t.dir,
    emit: (e) => events.push(e),
    log: () => undefined,
    live: () => null,
    threads: 2,
  });
});

afterAll(async () => {
  await rms?.dispose();
  await labels?.dispose();
  t?.cleanup();
});

describe('labels and the label queue', () => {
  it('labels, exports and imports back, all or nothing', async () => {
    expect(
      (await labels.labelQueue({ runId: 'r1', limit: 4, mode: 'auto' })).items.every((i) => i.uncertainty === 1),
    ).toBe(true);
    for (const c of convs)
      await labels.putLabel({ runId: 'r1', label: { kind: c.success ? 'good' : 'bad', episodeId: c.id } });
    const [a, b] = [convs[0]!, convs[1]!];
    await labels.putLabel({ runId: 'r1', label: { kind: 'prefer', episodeId: a.id, otherEpisodeId: b.id } });
    const exported = await labels.exportLabels({ runId: 'r1', conversations: true });
    expect(exported.labels).toBe(convs.length + 1);
    expect(JSON.parse(exported.jsonl.split('\n')[0]!).conversation.messages.length).toBeGreaterThan(2);
    const before = (await labels.labels({ runId: 'r1', limit: 1000 })).summary;
    await expect(
      labels.importLabels({ runId: 'r1', jsonl: `${exported.jsonl}{"episodeId": "ghost", "label": "good"}\n` }),
    ).rejects.toThrow(`line ${convs.length + 2}:`);
    expect((await labels.labels({ runId: 'r1', limit: 1000 })).summary).toEqual(before);
    for (const l of (await labels.labels({ runId: 'r1', limit: 1000 })).labels)
      await labels.deleteLabel({ runId: 'r1', labelId: l.id });
    expect(await labels.importLabels({ runId: 'r1', jsonl: exported.jsonl })).toEqual({
      imported: convs.length + 1,
      replaced: 0,
    });
    expect((await labels.labels({ runId: 'r1', limit: 1000 })).summary).toEqual(before);
    expect((await labels.episodeConversation({ runId: 'r1', episodeId: a.id })).messages).toEqual(a.messages);
  });

  it('serves the score-vs-verifiable chart, and deploys only into the live run', async () => {
    const q = await labels.labelQueue({ runId: 'r1', limit: 5, mode: 'auto' });
    expect(q.rewardModel).toBeNull();
    expect(q.items.length).toBeGreaterThan(0); // pairs of a task not yet compared
    expect(q.items.every((i) => i.kind === 'pair' && i.scores === null && i.uncertainty === 1)).toBe(true);
    t.store.putEpisodeMetrics('r1', convs[0]!.id, { [RM_SCORE_METRIC]: 0.7, [VERIFIABLE_REWARD_METRIC]: 1 });
    expect((await rms.rewardComparison({ runId: 'r1', limit: 100 })).points).toMatchObject([
      { episodeId: convs[0]!.id, rmScore: 0.7, verifiable: 1 },
    ]);
    await expect(rms.deployRewardModel({ runId: 'r1', version: 1 })).rejects.toThrow('not the live run');
    await expect(rms.rewardModels({ runId: 'r1' })).resolves.toEqual({ models: [], training: null });
    await expect(
      rms.trainRewardModel({ runId: 'nope', loss: 'pairwise', epochs: 1, lr: 1e-4, heldout: 0.2, maxMinutes: 1 }),
    ).rejects.toThrow('no run');
  });
});
