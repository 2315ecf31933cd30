// Test helpers for integration tests that drive a real worker over its swarm API: poll until a
// condition holds, read the status, and play one task group of episodes (claim, one chat call, end).
import OpenAI from 'openai';
import { expect } from 'vitest';
import type { ClaimResponse, Status } from '../../../src/shared/swarm-protocol';
import { http, TEST_TOKENS } from './workers';

/** Polls `fn` every 50 ms until `ok` holds for its value; throws with the last value after `timeoutMs`. */
export async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const swarmStatus = async (url: string): Promise<Status> =>
  (await http<Status>(url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body;

export interface PlayGroupOptions {
  clientId: string;
  /** Play the group's episodes at the same time (default: one after another). */
  together?: boolean;
  /** The OpenAI client's retries of a failed call (default 0). */
  maxRetries?: number;
}

/** Plays one group of `taskId`: two episodes of one chat call each, rewarded 1 and 0 (claims retried while 503). */
export async function playGroup(url: string, taskId: string, o: PlayGroupOptions): Promise<void> {
  const play = async (reward: number): Promise<void> => {
    const claim = await until(
      () =>
        http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
          token: TEST_TOKENS.join,
          body: { clientId: o.clientId, taskId },
        }),
      (r) => r.status !== 503,
    );
    expect(claim.status, JSON.stringify(claim.body)).toBe(201);
    const client = new OpenAI({
      baseURL: claim.body.baseUrl,
      apiKey: claim.body.apiKey,
      maxRetries: o.maxRetries ?? 0,
    });
    await client.chat.completions.create({
      model: claim.body.model,
      messages: [{ role: 'user', content: `What is ${taskId.length} + 2?` }],
      max_tokens: 12,
    });
    const end = await http(url, 'POST', `/swarm/v1/episodes/${claim.body.episodeId}/end`, {
      token: TEST_TOKENS.join,
      body: { taskId, reward },
    });
    expect(end.status).toBe(200);
  };
  if (o.together) await Promise.all([1, 0].map(play));
  else for (const reward of [1, 0]) await play(reward);
}
