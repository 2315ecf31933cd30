// Quarantine by code version through a real worker (fake engine): a version's pooled episodes
// leave the pool, stay out across a restart, come back on release, and the next update trains
// none of them while they are held.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { QuarantineListSchema, QuarantineResultSchema } from '../../../src/shared/swarm-inner-loop';
import { SwarmEventSchema, type SwarmEvent } from '../../../src/shared/swarm-events';
import { StatusSchema, type ClaimResponse } from '../../../src/shared/swarm-protocol';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, tempDir, TEST_TOKENS, type TestWorker } from '../testing/workers';

const running: TestWorker[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const admin = { token: TEST_TOKENS.admin };
const status = async (t: TestWorker) =>
  StatusSchema.parse((await http(t.worker.url, 'GET', '/swarm/v1/status', admin)).body);

async function playAndEnd(t: TestWorker, taskId: string, codeVersion: string, reward: number): Promise<string> {
  const c = (
    await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
      token: TEST_TOKENS.join,
      body: { clientId: 'q', taskId, codeVersion },
    })
  ).body;
  const r = await http(t.worker.url, 'POST', '/v1/chat/completions', {
    token: c.apiKey,
    body: { messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(r.status).toBe(200);
  const e = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
    token: TEST_TOKENS.join,
    body: { taskId, reward },
  });
  expect(e.status).toBe(200);
  return c.episodeId;
}

const post = async (t: TestWorker, path: string, body: unknown) => {
  const r = await http(t.worker.url, 'POST', path, { ...admin, body });
  expect(r.status).toBe(200);
  return QuarantineResultSchema.parse(r.body);
};

describe('quarantine by code version', () => {
  it('removes a version from the pool, survives a restart, is undone by release, and is never trained', async () => {
    const dir = tempDir('aj-quarantine-');
    dirs.push(dir);
    const config = { training: { strategy: 'C1' as const, batch: 3, algo: 'reinforce' as const, checkpointEvery: 0 } };
    const opts = { engine: { reply: scriptedReply }, dir };
    const first = await startFakeWorker(config, opts);
    running.push(first);
    const bad = [await playAndEnd(first, 'a', 'v1', 1), await playAndEnd(first, 'b', 'v1', 0)];
    expect((await status(first)).pool.episodes).toBe(2);

    const q = await post(first, '/swarm/v1/pool/quarantine', { codeVersion: 'v1' });
    expect(q.episodeIds.sort()).toEqual([...bad].sort());
    expect(q.poolEpisodes).toBe(0);
    expect((await status(first)).pool).toMatchObject({ episodes: 0, quarantined: 2 });
    const refused = await http(first.worker.url, 'POST', '/swarm/v1/pool/quarantine', { ...admin, body: {} });
    expect(refused.status).toBe(400);
    const joinOnly = await http(first.worker.url, 'POST', '/swarm/v1/pool/quarantine', {
      token: TEST_TOKENS.join,
      body: { codeVersion: 'v1' },
    });
    expect(joinOnly.status).toBe(403);
    await running.pop()!.stop();

    // After a restart the quarantine holds; a release puts them back, a second quarantine holds them again.
    const second = await startFakeWorker(config, { ...opts, start: { resume: true } });
    running.push(second);
    const list = QuarantineListSchema.parse(
      (await http(second.worker.url, 'GET', '/swarm/v1/pool/quarantine', admin)).body,
    );
    expect(list.quarantined.map((v) => [v.codeVersion, v.episodeIds.length])).toEqual([['v1', 2]]);
    expect((await status(second)).pool.episodes).toBe(0);
    expect((await post(second, '/swarm/v1/pool/release', { codeVersion: 'v1' })).poolEpisodes).toBe(2);
    expect((await post(second, '/swarm/v1/pool/quarantine', { codeVersion: 'v1' })).episodeIds).toHaveLength(2);

    // The next update trains three v2 episodes and none of v1's.
    const steps: SwarmEvent[] = [];
    const ws = new WebSocket(`${second.worker.url.replace('http', 'ws')}/swarm/v1/events`, {
      headers: { authorization: `Bearer ${TEST_TOKENS.admin}` },
    });
    ws.on('message', (d: Buffer) => {
      // The stream also carries non-event frames (its hello); only events parse.
      const e = SwarmEventSchema.safeParse(JSON.parse(d.toString()));
      if (e.success && e.data.type === 'step') steps.push(e.data);
    });
    await new Promise((r) => ws.once('open', r));
    const good = [await playAndEnd(second, 'c', 'v2', 1), await playAndEnd(second, 'd', 'v2', 0)];
    good.push(await playAndEnd(second, 'e', 'v2', 1));
    for (let i = 0; i < 500 && steps.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    ws.close();
    const step = steps[0];
    expect(step?.type === 'step' ? [...(step.episodeIds ?? [])].sort() : null).toEqual([...good].sort());
    expect((await status(second)).pool).toMatchObject({ episodes: 0, quarantined: 2 });
  });
});
