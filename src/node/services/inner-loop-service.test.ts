// The workbench side of quarantine and fork against a real worker (fake engine) and a real store:
// the worker's pool shrinks, the store marks the held episodes (and their release), and a fork of
// a stored call comes back with K continuations; probes keep one point per run.
import { afterEach, describe, expect, it } from 'vitest';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../../../gpu-worker/src/testing/workers';
import { scriptedReply } from '../../../gpu-worker/src/testing/scripted-replies';
import type { ClaimResponse } from '../../shared/swarm-protocol';
import { TimelineSchema } from '../../shared/timeline';
import { episodeInput, newRun, tempStore, type TempStore } from '../store/test-support';
import { InnerLoopService } from './inner-loop-service';
import { WorkerClient } from '../worker-client';

const running: TestWorker[] = [];
let temp: TempStore | null = null;
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
  temp?.cleanup();
});

async function play(t: TestWorker, taskId: string, codeVersion: string, reward: number): Promise<string> {
  const c = (
    await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
      token: TEST_TOKENS.join,
      body: { clientId: 'w', taskId, codeVersion },
    })
  ).body;
  await http(t.worker.url, 'POST', '/v1/chat/completions', {
    token: c.apiKey,
    body: { messages: [{ role: 'user', content: 'hi' }] },
  });
  await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
    token: TEST_TOKENS.join,
    body: { taskId, reward },
  });
  return c.episodeId;
}

describe('InnerLoopService', () => {
  it('quarantines through the worker and marks the store; forks a stored call; records probe points', async () => {
    const t = await startFakeWorker(
      { training: { strategy: 'C1', batch: 100, checkpointEvery: 0 } },
      { engine: { reply: scriptedReply } },
    );
    running.push(t);
    temp = tempStore();
    const store = temp.store;
    store.createRun(newRun('r'));
    let clock = 4000;
    const workerHttp = new WorkerClient(t.worker.url, TEST_TOKENS.admin);
    const svc = new InnerLoopService({
      store,
      live: () => ({ runId: 'r', http: workerHttp }),
      flush: () => undefined,
      cacheDir: temp.dir,
      nodePaths: [],
      editedFile: () => {
        throw new Error('not used here');
      },
      now: () => (clock += 1000),
    });
    const ids = [await play(t, 'a', 'v1', 1), await play(t, 'b', 'v1', 0), await play(t, 'c', 'v2', 1)];

    const q = await svc.quarantine('v1');
    expect(q.episodeIds.sort()).toEqual(ids.slice(0, 2).sort());
    expect(q.poolEpisodes).toBe(1);
    const list = await svc.quarantineList('r');
    expect(list.held).toEqual([expect.objectContaining({ codeVersion: 'v1' })]);
    expect(list.marks.map((m) => [m.codeVersion, m.releasedAt])).toEqual([
      ['v1', null],
      ['v1', null],
    ]);
    expect((await svc.release('v1')).poolEpisodes).toBe(3);
    expect((await svc.quarantineList('r')).marks.every((m) => m.releasedAt === 6)).toBe(true);

    // Fork a call the store holds (sent along to the worker).
    const ep = await http<{ timelines: unknown[] }>(t.worker.url, 'GET', `/swarm/v1/episodes/${ids[2]}`, {
      token: TEST_TOKENS.admin,
    });
    const timelines = ep.body.timelines.map((x) => TimelineSchema.parse(x));
    store.putEpisode('r', episodeInput(ids[2]!, { calls: timelines.length }));
    store.putEpisodeTimelines('r', ids[2]!, timelines, null);
    const fork = await svc.fork({ runId: 'r', episodeId: ids[2]!, callIndex: 0, k: 2, temperature: 1, maxTokens: 6 });
    expect(fork.continuations).toHaveLength(2);
    await expect(svc.fork({ runId: 'r', episodeId: ids[2]!, callIndex: 9, k: 1, temperature: 1 })).rejects.toThrow(
      /no stored call 9/,
    );

    const spec = { episodeId: ids[2]!, callIndex: 0, k: 3, temperature: 1, maxTokens: 6, contains: '' };
    await expect(svc.saveProbe('empty', spec)).rejects.toThrow();
    const saved = await svc.saveProbe('any text', { ...spec, contains: ' ' });
    expect(saved.point.k).toBe(3);
    await svc.runProbes();
    expect(svc.probes('r').probes[0]!.points).toHaveLength(2);
  });
});
