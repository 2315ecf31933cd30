// The live session's labelling rounds on a real SQLite store and LabelsService (no reward model yet: the
// queue proposes the newest episodes); the reward-model service is a fake that records train and deploy.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversation, say } from '../../shared/timeline/testing/scenes';
import type { RmTrainingStatus, RewardModelRow } from '../../shared/rewards-api';
import { episodeInput, newRun, tempStore, type TempStore } from '../store/test-support';
import { LabelsService } from './labels-service';
import { liveRelabelLoop, type LiveRelabelOptions } from './live-relabel';

let t: TempStore;
let labels: LabelsService;
beforeEach(() => {
  t = tempStore();
  t.store.createRun(newRun('r1'));
  for (let i = 0; i < 4; i++) {
    const id = `e${i}`;
    t.store.putEpisode('r1', episodeInput(id, { taskId: `task-${i}`, createdAt: 100 + i }));
    t.store.putEpisodeTimelines('r1', id, conversation(id, [{ reply: say(`#### ${i}`) }]), null);
  }
  labels = new LabelsService({ store: t.store, author: 'ana' });
});
afterEach(async () => {
  await labels.dispose();
  t.cleanup();
});

/** A fake RewardModelService: training finishes at once; records what it trained and deployed. */
function fakeRewardModels(calls: string[]): LiveRelabelOptions['rewardModels'] {
  let training: RmTrainingStatus | null = null;
  return {
    trainRewardModel: async () => {
      calls.push('train');
      training = { version: 2, state: 'done', fraction: 1, detail: 'ok', startedAt: 0 };
      return { version: 2 };
    },
    rewardModels: async () => ({ models: [] as RewardModelRow[], training }),
    deployRewardModel: async (p) => {
      calls.push(`deploy v${p.version}`);
      return { codeVersion: 'c2', path: 'reward-model-ref.ts' };
    },
  };
}

describe('liveRelabelLoop', () => {
  it("announces a round of the queue's proposals, waits for a person's labels, then trains and deploys", async () => {
    const calls: string[] = [];
    const notes: string[] = [];
    const loop = liveRelabelLoop({
      runId: 'r1',
      every: 3,
      perRound: 2,
      store: t.store,
      flush: () => undefined,
      labels,
      rewardModels: fakeRewardModels(calls),
      notify: (l) => notes.push(l),
      pollMs: 10,
    });
    loop.onStep(3);
    // The round asked for the two newest episodes (no reward model yet: newest first).
    for (let i = 0; i < 100 && !notes.some((n) => n.includes('proposes 2 episodes')); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual([]); // waiting for the labels
    await labels.putLabel({ runId: 'r1', label: { kind: 'good', episodeId: 'e3' } });
    await labels.putLabel({ runId: 'r1', label: { kind: 'bad', episodeId: 'e2' } });
    await loop.idle();
    expect(calls).toEqual(['train', 'deploy v2']);
    expect(loop.rounds).toMatchObject([{ round: 1, atUpdate: 3, labels: 2, version: 2 }]);
  });

  it('a session that ends stops a waiting round without training', async () => {
    const calls: string[] = [];
    const loop = liveRelabelLoop({
      runId: 'r1',
      every: 1,
      perRound: 2,
      store: t.store,
      flush: () => undefined,
      labels,
      rewardModels: fakeRewardModels(calls),
      notify: () => undefined,
      pollMs: 10,
    });
    loop.onStep(1);
    await loop.stop();
    expect(calls).toEqual([]);
    expect(loop.rounds).toMatchObject([{ labels: 0, version: null }]);
  });
});
