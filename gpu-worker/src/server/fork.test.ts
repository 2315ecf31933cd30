// Forking a recorded call through a real worker (fake engine): K continuations of the exact
// recorded prompt ids with per-token logprobs, an edited tool result re-rendered after the kept
// prefix, nothing recorded or pooled, and clear errors for a missing call or a mismatched timeline.
import { afterEach, describe, expect, it } from 'vitest';
import { ForkResultSchema } from '../../../src/shared/swarm-inner-loop';
import { StatusSchema, type ClaimResponse } from '../../../src/shared/swarm-protocol';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../testing/workers';

const running: TestWorker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});
const admin = { token: TEST_TOKENS.admin };

describe('POST /swarm/v1/fork', () => {
  it('samples K continuations of a recorded call, optionally after an edited tool result', async () => {
    const t = await startFakeWorker({ training: { strategy: 'C1', batch: 100 } }, { engine: { reply: scriptedReply } });
    running.push(t);
    const c = (
      await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'f', taskId: 'a' },
      })
    ).body;
    const messages = [
      { role: 'user', content: 'what is 2+3?' },
      { role: 'assistant', content: 'let me compute' },
      { role: 'tool', content: '5', tool_call_id: 'x' },
    ];
    expect(
      (await http(t.worker.url, 'POST', '/v1/chat/completions', { token: c.apiKey, body: { messages } })).status,
    ).toBe(200);
    const before = StatusSchema.parse((await http(t.worker.url, 'GET', '/swarm/v1/status', admin)).body);

    const plain = await http(t.worker.url, 'POST', '/swarm/v1/fork', {
      ...admin,
      body: { episodeId: c.episodeId, callIndex: 0, k: 3, maxTokens: 8 },
    });
    expect(plain.status).toBe(200);
    const fork = ForkResultSchema.parse(plain.body);
    expect(fork.continuations).toHaveLength(3);
    expect(fork.edited).toBeNull();
    for (const k of fork.continuations) {
      expect(k.tokenIds.length).toBeGreaterThan(0);
      expect(k.logprobs).toHaveLength(k.tokenIds.length);
    }
    expect(fork.recorded.tokenIds.length).toBeGreaterThan(0);

    const edited = await http(t.worker.url, 'POST', '/swarm/v1/fork', {
      ...admin,
      body: { episodeId: c.episodeId, callIndex: 0, k: 2, maxTokens: 8, edit: { content: '6' } },
    });
    expect(edited.status).toBe(200);
    expect(ForkResultSchema.parse(edited.body).edited).toBe('tool');

    // Nothing was recorded: the episode still has one call, the counters did not move.
    const after = StatusSchema.parse((await http(t.worker.url, 'GET', '/swarm/v1/status', admin)).body);
    expect(after.counters.calls).toBe(before.counters.calls);
    const ep = await http<{ timelines: unknown[] }>(t.worker.url, 'GET', `/swarm/v1/episodes/${c.episodeId}`, admin);
    expect(ep.body.timelines).toHaveLength(1);

    const missing = await http(t.worker.url, 'POST', '/swarm/v1/fork', {
      ...admin,
      body: { episodeId: c.episodeId, callIndex: 5 },
    });
    expect(missing.status).toBe(404);
    const joinOnly = await http(t.worker.url, 'POST', '/swarm/v1/fork', {
      token: TEST_TOKENS.join,
      body: { episodeId: c.episodeId, callIndex: 0 },
    });
    expect(joinOnly.status).toBe(403);
  });
});
