// The Responses API against a worker with the fake engine, with the official `openai` SDK as the
// client (`responses.create`, streamed and not, `responses.stream`): a multi-turn tool episode whose
// calls are recorded exactly as the same episode through chat completions (same tokens, one merged
// sample), previous_response_id within an episode, the typed stream events, and the 400s.
import OpenAI from 'openai';
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
  openaiFor,
} from '../testing/api-episodes';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../testing/workers';

const calcTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'calc',
  description: 'Evaluate arithmetic.',
  strict: false,
  parameters: CALC_PARAMETERS,
};

describe('Responses API (fake engine, openai SDK client)', () => {
  let t: TestWorker;
  const claim = async (): Promise<{ c: ClaimResponse; client: OpenAI }> => {
    const c = await claimEpisode(t, 'responses-client');
    return { c, client: openaiFor(c) };
  };
  const timelines = (episodeId: string) => episodeTimelines(t, episodeId);
  /** The reference: the same two-turn episode through chat completions. */
  const chatEpisode = () => chatCalcEpisode(t, 'responses-client');

  beforeAll(async () => {
    t = await startFakeWorker({}, { engine: { reply: scriptedReply, stepMs: 1 } });
  });
  afterAll(async () => t.stop());

  it('plays a tool-using episode by sending the output items back; recorded and merged as through chat completions', async () => {
    const reference = await chatEpisode();
    const { c, client } = await claim();
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: QUESTION }];
    const first = await client.responses.create({ model: c.model, instructions: SYSTEM, input, tools: [calcTool] });
    expect(first.status).toBe('completed');
    expect(first.output.map((o) => o.type)).toEqual(['message', 'function_call']);
    expect(first.output_text).toBe('Let me compute.');
    const fc = first.output[1]!;
    if (fc.type !== 'function_call') throw new Error('expected a function call');
    expect(fc.name).toBe('calc');
    expect(JSON.parse(fc.arguments)).toEqual({ expression: '2+3' });
    expect(first.usage!.output_tokens).toBeGreaterThan(0);
    input.push(...first.output.flatMap((o) => (o.type === 'message' || o.type === 'function_call' ? [o] : [])), {
      type: 'function_call_output',
      call_id: fc.call_id,
      output: '5',
    });
    const second = await client.responses.create({ model: c.model, instructions: SYSTEM, input, tools: [calcTool] });
    expect(second.output_text).toBe('The answer is 5.');
    sameRecording(reference, await timelines(c.episodeId));
  });

  it('continues with previous_response_id, streamed, with the typed events in order', async () => {
    const reference = await chatEpisode();
    const { c, client } = await claim();
    const stream = await client.responses.create({
      model: c.model,
      instructions: SYSTEM,
      input: QUESTION,
      tools: [calcTool],
      stream: true,
    });
    const types: string[] = [];
    const seqs: number[] = [];
    let completed: OpenAI.Responses.Response | null = null;
    let text = '';
    for await (const e of stream) {
      types.push(e.type);
      seqs.push(e.sequence_number);
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') completed = e.response;
    }
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.function_call_arguments.done');
    expect(text).toBe('Let me compute.');
    const fc = completed!.output.find((o) => o.type === 'function_call');
    if (fc?.type !== 'function_call') throw new Error('expected a function call');

    // previous_response_id: only the tool result is sent; the instructions are given again.
    const runner = client.responses.stream({
      model: c.model,
      instructions: SYSTEM,
      previous_response_id: completed!.id,
      tools: [calcTool],
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: '5' }],
    });
    const final = await runner.finalResponse();
    expect(final.output_text).toBe('The answer is 5.');
    expect(final.previous_response_id).toBe(completed!.id);
    sameRecording(reference, await timelines(c.episodeId));
  });

  it('refuses what it does not do with a clear 400, and previous_response_id across episodes', async () => {
    const a = await claim();
    const first = await a.client.responses.create({ model: a.c.model, input: 'hi' });
    const b = await claim();
    await expect(
      b.client.responses.create({ model: b.c.model, input: 'hi', previous_response_id: first.id }),
    ).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found' });
    await expect(
      b.client.responses.create({ model: b.c.model, input: 'hi', tools: [{ type: 'web_search' }] }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_tool' });
    await expect(
      b.client.responses.create({ model: b.c.model, input: [{ type: 'item_reference', id: 'msg_1' }] }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_input_item' });
    await expect(
      b.client.responses.create({ model: b.c.model, input: 'hi', text: { format: { type: 'json_object' } } }),
    ).rejects.toMatchObject({ status: 400, code: 'response_format_not_supported' });
    await expect(
      b.client.responses.create({ model: b.c.model, input: 'hi', reasoning: { effort: 'high' } }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter' });
    const raw = await http(t.worker.url, 'POST', '/v1/responses', {
      token: b.c.apiKey,
      body: { input: 'hi', frobnicate: true },
    });
    expect(raw.status).toBe(400);
    expect(JSON.stringify(raw.body)).toContain('frobnicate');
    const noKey = await http(t.worker.url, 'POST', '/v1/responses', { token: TEST_TOKENS.join, body: { input: 'hi' } });
    expect(noKey.status).toBe(401);
  });

  it('reports a reply cut by max_output_tokens as incomplete', async () => {
    const { c, client } = await claim();
    const short = await client.responses.create({ model: c.model, input: 'long', max_output_tokens: 5 });
    expect(short.status).toBe('incomplete');
    expect(short.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    const streamed = await client.responses.create({
      model: c.model,
      input: 'long',
      max_output_tokens: 5,
      stream: true,
    });
    let last = '';
    for await (const e of streamed) last = e.type;
    expect(last).toBe('response.incomplete');
  });
});
