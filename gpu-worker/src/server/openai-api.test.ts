// The OpenAI-compatible API against a worker with the fake engine, with the official `openai` SDK
// as the client: tool calls, streaming deltas, tool_choice, limits, stop strings, recording.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse } from '../../../src/shared/swarm-protocol';
import { mergeTimelines, type Timeline } from '../../../src/shared/timeline/index';
import { claimEpisode, episodeTimelines, openaiFor } from '../testing/api-episodes';
import { CALC_CALL, scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../testing/workers';

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'calc',
      description: 'Evaluate arithmetic.',
      parameters: { type: 'object', properties: { expression: { type: 'string' } } },
    },
  },
  {
    type: 'function',
    function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
  },
];

/** The key with one signature character changed (still canonical base64url). */
const forge = (key: string): string => {
  const i = key.length - 10;
  return key.slice(0, i) + (key[i] === 'A' ? 'B' : 'A') + key.slice(i + 1);
};

describe('OpenAI API (fake engine, openai SDK client)', () => {
  let t: TestWorker;
  const claim = async (
    kind: 'train' | 'eval' = 'eval',
    clientId = 'sdk-client',
  ): Promise<{ c: ClaimResponse; client: OpenAI }> => {
    const c = await claimEpisode(t, clientId, kind);
    return { c, client: openaiFor(c) };
  };
  const timelines = (episodeId: string): Promise<Timeline[]> => episodeTimelines(t, episodeId);

  beforeAll(async () => {
    t = await startFakeWorker({}, { engine: { reply: scriptedReply, stepMs: 1 } });
  });
  afterAll(async () => t.stop());

  it('lists the served model', async () => {
    const { client } = await claim();
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fake-model']);
  });

  it('answers with parsed tool calls, then continues after the tool result; both calls are recorded and merge into one sample', async () => {
    const { c, client } = await claim();
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a calculator.' },
      { role: 'user', content: 'calc 2+3 please' },
    ];
    const first = await client.chat.completions.create({ model: c.model, messages, tools, max_tokens: 200 });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Let me compute.');
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'calc', arguments: '{"expression":"2+3"}' },
      },
    ]);
    expect(first.usage!.completion_tokens).toBe([...`Let me compute.\n${CALC_CALL}`].length + 1);
    expect(first.model).toBe('fake-model');
    const call = choice.message.tool_calls![0]!;
    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '5' });
    const second = await client.chat.completions.create({ model: c.model, messages, tools });
    expect(second.choices[0]!.message.content).toBe('The answer is 5.');
    expect(second.choices[0]!.finish_reason).toBe('stop');

    const recorded = await timelines(c.episodeId);
    expect(recorded.map((r) => r.callIndex)).toEqual([0, 1]);
    expect(recorded[0]!.output.tool_calls).toHaveLength(1);
    expect(recorded[0]!.outputIds.length).toBe(recorded[0]!.outputLogprobs.length);
    const merged = mergeTimelines(recorded, { mode: 'linear', level: 'token' });
    expect(merged.samples).toHaveLength(1);
    expect(merged.stats.breaks).toEqual([]);
  });

  it('streams content and tool-call deltas incrementally and ends with [DONE]', async () => {
    const { c, client } = await claim();
    const stream = await client.chat.completions.create({
      model: c.model,
      stream: true,
      stream_options: { include_usage: true },
      tools,
      max_tokens: 600,
      messages: [{ role: 'user', content: 'long answer please' }],
    });
    const contents: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const ch = chunk.choices[0];
      if (ch?.delta.content) contents.push(ch.delta.content);
      if (ch?.finish_reason) finish = ch.finish_reason;
    }
    expect(contents.length).toBeGreaterThan(3);
    expect(contents.join('')).toBe('word '.repeat(100).trim());
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBe(500);

    const runner = client.chat.completions.stream({
      model: c.model,
      tools,
      messages: [{ role: 'user', content: 'calc twice' }],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls!.map((x) => x.type === 'function' && x.function.name)).toEqual([
      'calc',
      'lookup',
    ]);
    const nonStream = await client.chat.completions.create({
      model: c.model,
      tools,
      messages: [{ role: 'user', content: 'calc twice' }],
    });
    expect(final.choices[0]!.message.tool_calls!.map((x) => x.type === 'function' && x.function.arguments)).toEqual(
      nonStream.choices[0]!.message.tool_calls!.map((x) => x.type === 'function' && x.function.arguments),
    );
  });

  it('honours tool_choice none, required and a named function', async () => {
    const { c, client } = await claim();
    const none = await client.chat.completions.create({
      model: c.model,
      tools,
      tool_choice: 'none',
      messages: [{ role: 'user', content: 'calc' }],
    });
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
    expect(none.choices[0]!.message.content).toContain('<tool_call>');
    const required = await client.chat.completions.create({
      model: c.model,
      tools,
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'sometimes a tool' }],
    });
    expect(required.choices[0]!.message.tool_calls).toHaveLength(1);
    const named = await client.chat.completions.create({
      model: c.model,
      tools,
      tool_choice: { type: 'function', function: { name: 'calc' } },
      messages: [{ role: 'user', content: 'calc' }],
    });
    expect(
      named.choices[0]!.message.tool_calls![0]!.type === 'function' &&
        named.choices[0]!.message.tool_calls![0]!.function.name,
    ).toBe('calc');
    await expect(
      client.chat.completions.create({
        model: c.model,
        tools,
        tool_choice: { type: 'function', function: { name: 'nope' } },
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'unknown_tool' });
  });

  it('streams a tool_choice "required" reply once it satisfies the choice, and records the agent named in a header', async () => {
    const { c } = await claim();
    const client = new OpenAI({
      baseURL: c.baseUrl,
      apiKey: c.apiKey,
      maxRetries: 0,
      defaultHeaders: { 'X-AgentJet-Agent': 'planner' },
    });
    const runner = client.chat.completions.stream({
      model: c.model,
      tools,
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'sometimes a tool' }],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls).toHaveLength(1);
    expect((await timelines(c.episodeId)).map((x) => x.agent)).toEqual(['planner']);
  });

  it('returns a malformed block as plain text and counts it', async () => {
    const { c, client } = await claim();
    const out = await client.chat.completions.create({
      model: c.model,
      tools,
      messages: [{ role: 'user', content: 'malformed' }],
    });
    expect(out.choices[0]!.message.content).toBe('Here: <tool_call>{oops}</tool_call>');
    expect(out.choices[0]!.message.tool_calls).toBeUndefined();
    const summary = (
      await http<{ episode: { malformedToolCalls: number } }>(
        t.worker.url,
        'GET',
        `/swarm/v1/episodes/${c.episodeId}`,
        { token: TEST_TOKENS.admin },
      )
    ).body;
    expect(summary.episode.malformedToolCalls).toBe(1);
  });

  it('honours max_tokens, stop strings and refuses n > 1 and absurd max_tokens', async () => {
    const { c, client } = await claim();
    const short = await client.chat.completions.create({
      model: c.model,
      max_completion_tokens: 5,
      messages: [{ role: 'user', content: 'long' }],
    });
    expect(short.choices[0]!.finish_reason).toBe('length');
    expect(short.usage!.completion_tokens).toBe(5);
    const stopped = await client.chat.completions.create({
      model: c.model,
      stop: ['STOP'],
      messages: [{ role: 'user', content: 'stop' }],
    });
    expect(stopped.choices[0]!.message.content).toBe('alpha beta ');
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
    const streamed = await client.chat.completions.create({
      model: c.model,
      stop: 'STOP',
      stream: true,
      messages: [{ role: 'user', content: 'stop' }],
    });
    let text = '';
    for await (const ch of streamed) text += ch.choices[0]?.delta.content ?? '';
    expect(text).toBe('alpha beta ');
    const rec = (await timelines(c.episodeId)).at(-1)!;
    expect(rec.outputIds.length).toBe([...'alpha beta STOP'].length);
    await expect(
      client.chat.completions.create({ model: c.model, n: 2, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 400, code: 'n_not_supported' });
    await expect(
      client.chat.completions.create({
        model: c.model,
        max_tokens: 10_000_000,
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'max_tokens_too_large' });
  });

  it('sends each call to the engine as it comes (the engine batches them) through the admission gate', async () => {
    const { c, client } = await claim();
    const before = t.engines[0]!.generateBatches.length;
    const admitted = t.worker.swarm.status().serving!.admitted;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content: 'hi' }] }),
      ),
    );
    expect(t.engines[0]!.generateBatches.slice(before)).toEqual(Array(12).fill(1));
    expect(t.worker.swarm.status().serving).toMatchObject({
      mode: 'continuous',
      admitted: admitted + 12,
      inFlight: 0,
      waiting: 0,
    });
  });

  it('names each call by its index in the episode, streamed or not, concurrent or not', async () => {
    const { c, client } = await claim();
    const stem = c.episodeId.slice(3);
    const streamed = async (): Promise<Set<string>> => {
      const s = await client.chat.completions.create({
        model: c.model,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const ids = new Set<string>();
      for await (const ch of s) ids.add(ch.id);
      return ids;
    };
    const [a, b] = await Promise.all([streamed(), streamed()]);
    expect([...a, ...b].sort()).toEqual([`chatcmpl-${stem}_0`, `chatcmpl-${stem}_1`]);
    const json = await client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content: 'hi' }] });
    expect(json.id).toBe(`chatcmpl-${stem}_2`);
    expect((await timelines(c.episodeId)).map((r) => r.callIndex).sort()).toEqual([0, 1, 2]);
  });

  it('keeps text with multi-byte characters intact across streamed chunks', async () => {
    const { c, client } = await claim();
    const s = await client.chat.completions.create({
      model: c.model,
      stream: true,
      messages: [{ role: 'user', content: 'unicode' }],
    });
    let text = '';
    for await (const ch of s) text += ch.choices[0]?.delta.content ?? '';
    expect(text).toBe('café 🙂 你好');
  });

  it('refuses the admin token, forged keys and calls after end', async () => {
    const bad = new OpenAI({ baseURL: `${t.worker.url}/v1`, apiKey: TEST_TOKENS.admin, maxRetries: 0 });
    await expect(
      bad.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 401 });
    const { c, client } = await claim();
    const forged = new OpenAI({ baseURL: c.baseUrl, apiKey: forge(c.apiKey), maxRetries: 0 });
    await expect(
      forged.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 401, code: 'invalid_episode_key' });
    await client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content: 'hi' }] });
    const end = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: c.apiKey,
      body: { taskId: 'task-1', reward: 1 },
    });
    expect(end.status).toBe(200);
    await expect(
      client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 409, code: 'episode_ended' });
  });
});
