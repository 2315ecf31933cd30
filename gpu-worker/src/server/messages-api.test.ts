// The Messages API against a worker with the fake engine, with the official `@anthropic-ai/sdk` as
// the client (`messages.create`, `messages.stream`; the episode key sent as x-api-key): a multi-turn
// tool episode recorded exactly as the same episode through chat completions (same tokens, one
// merged sample), the streaming events, stop reasons and the 400s.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse } from '../../../src/shared/swarm-protocol';
import {
  CALC_PARAMETERS,
  CALC_QUESTION as QUESTION,
  CALC_SYSTEM as SYSTEM,
  chatCalcEpisode,
  claimEpisode,
  episodeTimelines,
  expectSameRecording as sameRecording,
} from '../testing/api-episodes';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, type TestWorker } from '../testing/workers';

const calcTool: Anthropic.Tool = { name: 'calc', description: 'Evaluate arithmetic.', input_schema: CALC_PARAMETERS };

describe('Messages API (fake engine, @anthropic-ai/sdk client)', () => {
  let t: TestWorker;
  const claim = (): Promise<ClaimResponse> => claimEpisode(t, 'messages-client');
  // The Anthropic SDK appends /v1/messages to its base URL: hand it the server root.
  const anthropic = (c: ClaimResponse): Anthropic =>
    new Anthropic({ baseURL: c.baseUrl.replace(/\/v1$/, ''), apiKey: c.apiKey, maxRetries: 0 });
  const timelines = (episodeId: string) => episodeTimelines(t, episodeId);
  const chatEpisode = () => chatCalcEpisode(t, 'messages-client');

  beforeAll(async () => {
    t = await startFakeWorker({}, { engine: { reply: scriptedReply, stepMs: 1 } });
  });
  afterAll(async () => t.stop());

  /** Plays the calc episode: turn 1 with `first`, turn 2 with `second` (create or stream). */
  const play = async (c: ClaimResponse, streamTurn: 0 | 1 | 2): Promise<void> => {
    const client = anthropic(c);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: QUESTION }];
    const ask = (turn: number): Promise<Anthropic.Message> => {
      const params = { model: c.model, max_tokens: 256, system: SYSTEM, messages, tools: [calcTool] };
      return streamTurn === turn ? client.messages.stream(params).finalMessage() : client.messages.create(params);
    };
    const first = await ask(1);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    const use = first.content[1]!;
    if (use.type !== 'tool_use') throw new Error('expected tool_use');
    expect(use.input).toEqual({ expression: '2+3' });
    expect(first.usage.input_tokens).toBeGreaterThan(0);
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '5' }] },
    );
    const second = await ask(2);
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([{ type: 'text', text: 'The answer is 5.' }]);
  };

  it('plays a tool-using episode with messages.create; recorded and merged as through chat completions', async () => {
    const reference = await chatEpisode();
    const c = await claim();
    await play(c, 0);
    sameRecording(reference, await timelines(c.episodeId));
  });

  it('plays it with messages.stream (each turn) and the events come in Anthropic order', async () => {
    const reference = await chatEpisode();
    for (const turn of [1, 2] as const) {
      const c = await claim();
      await play(c, turn);
      sameRecording(reference, await timelines(c.episodeId));
    }
    const c = await claim();
    const raw = await anthropic(c).messages.create({
      model: c.model,
      max_tokens: 256,
      messages: [{ role: 'user', content: QUESTION }],
      tools: [calcTool],
      stream: true,
    });
    const types: string[] = [];
    for await (const e of raw) types.push(e.type === 'content_block_delta' ? `${e.type}:${e.delta.type}` : e.type);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(types).toContain('content_block_delta:text_delta');
    expect(types).toContain('content_block_delta:input_json_delta');
  });

  it('maps max_tokens and stop_sequences, and refuses what it does not do with a clear 400', async () => {
    const c = await claim();
    const client = anthropic(c);
    const short = await client.messages.create({
      model: c.model,
      max_tokens: 5,
      messages: [{ role: 'user', content: 'long' }],
    });
    expect(short.stop_reason).toBe('max_tokens');
    expect(short.usage.output_tokens).toBe(5);
    const stopped = await client.messages.create({
      model: c.model,
      max_tokens: 64,
      stop_sequences: ['STOP'],
      messages: [{ role: 'user', content: 'stop' }],
    });
    expect(stopped.content).toEqual([{ type: 'text', text: 'alpha beta ' }]);
    const topK = await http(t.worker.url, 'POST', '/v1/messages', {
      headers: { 'x-api-key': c.apiKey },
      body: { model: 'm', max_tokens: 8, top_k: 5, messages: [{ role: 'user', content: 'x' }] },
    });
    expect(topK.status).toBe(400);
    await expect(
      client.messages.create({
        model: c.model,
        max_tokens: 64,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.messages.create({
        model: c.model,
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
          },
        ],
      }),
    ).rejects.toMatchObject({ status: 400 });
    const raw = await http(t.worker.url, 'POST', '/v1/messages', {
      headers: { 'x-api-key': c.apiKey },
      body: {
        model: 'm',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      },
    });
    expect(raw.status).toBe(400);
    expect(JSON.stringify(raw.body)).toContain('unsupported_tool');
    const bearer = await http(t.worker.url, 'POST', '/v1/messages', {
      token: c.apiKey,
      body: { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(bearer.status).toBe(200);
    const none = await http(t.worker.url, 'POST', '/v1/messages', {
      body: { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(none.status).toBe(401);
  });
});
