// SSE token by token: a real worker (the Python engine, built-in model) streams content as it is
// generated and a tool call as OpenAI/vLLM do (id + name first, arguments in pieces); the streamed
// reply equals the recorded one. A client that goes away cancels its engine request (fake engine).
import { existsSync, rmSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse } from '../../../src/shared/swarm-protocol';
import { BUILTIN_MODEL_DIR } from '../resources';
import { http, startBuiltinWorker, startFakeWorker, tempDir, TEST_TOKENS } from '../testing/workers';
import type { Worker } from '../worker';

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'calc',
      description: 'Evaluate an arithmetic expression.',
      parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
    },
  },
];

async function claim(url: string): Promise<{ c: ClaimResponse; client: OpenAI }> {
  const res = await http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
    token: TEST_TOKENS.join,
    body: { clientId: 'stream', kind: 'eval' },
  });
  expect(res.status).toBe(201);
  return { c: res.body, client: new OpenAI({ baseURL: res.body.baseUrl, apiKey: res.body.apiKey, maxRetries: 0 }) };
}

describe('token-by-token streaming (real engine)', () => {
  let w: Worker;
  let dir: string;

  beforeAll(async () => {
    expect(existsSync(BUILTIN_MODEL_DIR)).toBe(true);
    dir = tempDir('aj-stream-');
    w = await startBuiltinWorker(dir, { training: { strategy: 'C1', batch: 1000 } });
  });
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams a tool call: id and name before its arguments, the arguments in pieces, equal to the recorded reply', async () => {
    const { c, client } = await claim(w.url);
    let found = false;
    for (let seed = 0; seed < 6 && !found; seed++) {
      const stream = await client.chat.completions.create({
        model: c.model,
        messages: [{ role: 'user', content: 'What is 123 * 45? Use the calc tool.' }],
        tools,
        max_tokens: 64,
        temperature: 0.3,
        seed,
        stream: true,
      });
      const kinds: string[] = [];
      let name = '';
      let args = '';
      let id = '';
      for await (const chunk of stream) {
        const d = chunk.choices[0]?.delta;
        if (d?.content) kinds.push('content');
        for (const tc of d?.tool_calls ?? []) {
          if (tc.index !== 0) continue;
          if (tc.id) {
            id = tc.id;
            name = tc.function?.name ?? '';
            expect(tc.function?.arguments).toBe('');
            kinds.push('start');
          } else if (tc.function?.arguments) {
            args += tc.function.arguments;
            kinds.push('args');
          }
        }
      }
      if (!kinds.includes('start')) continue;
      found = true;
      expect(name).toBe('calc');
      expect(kinds.indexOf('start')).toBeLessThan(kinds.indexOf('args'));
      expect(kinds.filter((k) => k === 'args').length).toBeGreaterThanOrEqual(4); // token by token, not one piece
      const ep = await http<{ timelines: { output: OpenAI.Chat.ChatCompletionMessage; outputIds: number[] }[] }>(
        w.url,
        'GET',
        `/swarm/v1/episodes/${c.episodeId}`,
        { token: TEST_TOKENS.admin },
      );
      const recorded = ep.body.timelines.at(-1)!.output;
      const call = recorded.tool_calls?.[0];
      expect(call?.id).toBe(id);
      expect(call?.type === 'function' ? call.function.arguments : '').toBe(args);
      expect(JSON.parse(args)).toHaveProperty('expression');
    }
    expect(found, 'the built-in model made no tool call in 6 tries').toBe(true);
  });

  it('streams plain text in one chunk per token or so, not in a few big chunks', async () => {
    const { c, client } = await claim(w.url);
    const stream = await client.chat.completions.create({
      model: c.model,
      messages: [{ role: 'user', content: 'Say hello and tell me about your day.' }],
      max_tokens: 40,
      seed: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    let chunks = 0;
    let text = '';
    let tokens = 0;
    for await (const chunk of stream) {
      if (chunk.usage) tokens = chunk.usage.completion_tokens;
      const piece = chunk.choices[0]?.delta.content;
      if (piece) {
        chunks += 1;
        text += piece;
      }
    }
    expect(tokens).toBeGreaterThan(0);
    if (text.length >= 8) expect(chunks).toBeGreaterThanOrEqual(Math.min(8, tokens / 3));
    const s = (
      await http<{ serving: { engine: { prefixCache: { lookups: number } } | null } }>(
        w.url,
        'GET',
        '/swarm/v1/status',
        { token: TEST_TOKENS.admin },
      )
    ).body;
    expect(s.serving.engine?.prefixCache.lookups).toBeGreaterThan(0);
  });
});

describe('a client that goes away (fake engine)', () => {
  it('cancels its generation in the engine and records nothing', async () => {
    const t = await startFakeWorker(
      {},
      { engine: { stepMs: 20, reply: () => 'a long reply that takes a while to stream out, token by token' } },
    );
    try {
      const { c } = await claim(t.worker.url);
      const controller = new AbortController();
      const res = await fetch(`${c.baseUrl}/chat/completions`, {
        method: 'POST',
        signal: controller.signal,
        headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: c.model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const reader = res.body!.getReader();
      await reader.read(); // the first chunk arrived: the generation runs
      controller.abort();
      const engine = t.engines[0]!;
      while (engine.cancelledGenerates === 0) await new Promise((r) => setTimeout(r, 10));
      while (t.worker.swarm.status().serving!.cancelled === 0) await new Promise((r) => setTimeout(r, 10));
      const ep = await http<{ timelines: unknown[] }>(t.worker.url, 'GET', `/swarm/v1/episodes/${c.episodeId}`, {
        token: TEST_TOKENS.admin,
      });
      expect(ep.body.timelines).toHaveLength(0);
    } finally {
      await t.stop();
    }
  });
});
