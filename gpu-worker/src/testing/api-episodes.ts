// Test support for the API suites (chat completions, Responses, Messages): claiming an episode
// from a test worker, reading its recorded timelines, the reference two-turn calc episode played
// through chat completions, and the check that another API recorded the same tokens and merges the
// same way.
import OpenAI from 'openai';
import { expect } from 'vitest';
import type { ClaimResponse } from '../../../src/shared/swarm-protocol';
import { mergeTimelines, type Timeline } from '../../../src/shared/timeline/index';
import { http, TEST_TOKENS, type TestWorker } from './workers';

export const CALC_SYSTEM = 'You are a calculator.';
export const CALC_QUESTION = 'calc 2+3 please';
export const CALC_PARAMETERS = { type: 'object' as const, properties: { expression: { type: 'string' } } };
export const CHAT_CALC_TOOL: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'calc', description: 'Evaluate arithmetic.', parameters: CALC_PARAMETERS },
};

/** Claims an episode (201 expected) for `clientId`. */
export async function claimEpisode(
  t: TestWorker,
  clientId: string,
  kind: 'train' | 'eval' = 'eval',
): Promise<ClaimResponse> {
  const res = await http<ClaimResponse>(t.worker.url, 'POST', '/swarm/v1/episodes', {
    token: TEST_TOKENS.join,
    body: { clientId, kind, taskId: 'task-1' },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** The official OpenAI client on an episode's base URL and key. */
export const openaiFor = (c: ClaimResponse): OpenAI =>
  new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 });

export async function episodeTimelines(t: TestWorker, episodeId: string): Promise<Timeline[]> {
  return (
    await http<{ timelines: Timeline[] }>(t.worker.url, 'GET', `/swarm/v1/episodes/${episodeId}`, {
      token: TEST_TOKENS.admin,
    })
  ).body.timelines;
}

/** The reference: the two-turn calc episode (a tool call, its result, the answer) through chat completions. */
export async function chatCalcEpisode(t: TestWorker, clientId: string): Promise<Timeline[]> {
  const c = await claimEpisode(t, clientId);
  const client = openaiFor(c);
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: CALC_SYSTEM },
    { role: 'user', content: CALC_QUESTION },
  ];
  const first = await client.chat.completions.create({ model: c.model, messages, tools: [CHAT_CALC_TOOL] });
  const call = first.choices[0]!.message.tool_calls![0]!;
  messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '5' });
  await client.chat.completions.create({ model: c.model, messages, tools: [CHAT_CALC_TOOL] });
  return episodeTimelines(t, c.episodeId);
}

/** `b` recorded the same prompt and output tokens as `a`, and merges the same way: one sample, no breaks. */
export function expectSameRecording(a: Timeline[], b: Timeline[]): void {
  expect(b.map((x) => x.promptIds)).toEqual(a.map((x) => x.promptIds));
  expect(b.map((x) => x.outputIds)).toEqual(a.map((x) => x.outputIds));
  const ma = mergeTimelines(a, { mode: 'linear', level: 'token' });
  const mb = mergeTimelines(b, { mode: 'linear', level: 'token' });
  expect(mb.samples.length / b.length).toBe(ma.samples.length / a.length);
  expect(mb.samples).toHaveLength(1);
  expect(mb.stats.breaks).toEqual([]);
}
