// Load generators of `bench server`: claims, plain-fetch chat calls (the load generator shares the
// process with the worker, so it stays light), SSE streams timed per chunk, and multi-turn episodes
// with a long system + tools prompt that grows by the reply and a new message each turn.
import type { Worker } from '../gpu-worker/src/worker';
import type { ClaimResponse } from '../src/shared/swarm-protocol';
import { routePath, workerRoutes } from '../src/shared/worker-routes';

export const PROMPTS = [
  'Tom has 12 apples and buys 7 more. How many apples does he have now?',
  'What is 345 + 678?',
  'A box holds 9 pens. How many pens are in 6 boxes?',
  'I am thinking of a number between 1 and 100. Guess it.',
];

export async function claim(w: Worker, clientId: string): Promise<ClaimResponse> {
  const res = await fetch(`${w.url}${workerRoutes.claim.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.tokens.join}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, kind: 'eval' }),
  });
  if (res.status !== 201) throw new Error(`claim failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as ClaimResponse;
}

export async function abort(w: Worker, episodeId: string): Promise<void> {
  await fetch(`${w.url}${routePath(workerRoutes.abort, { id: episodeId })}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.tokens.join}` },
  });
}

export const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

interface ChatReply {
  choices?: {
    message: {
      role: string;
      content: string | null;
      tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
    };
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } };
}

export async function chat(
  c: ClaimResponse,
  body: Record<string, unknown>,
): Promise<{ reply: ChatReply; engineMs: number }> {
  const res = await fetch(`${c.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: c.model, ...body }),
  });
  if (res.status !== 200) throw new Error(`chat failed: ${res.status} ${await res.text()}`);
  return { reply: (await res.json()) as ChatReply, engineMs: Number(res.headers.get('x-agentjet-engine-ms')) };
}

/** Generated tokens/s with `n` episodes each making `calls` calls concurrently (≥ 4 calls in all). */
export async function throughput(w: Worker, n: number, minCalls: number, maxTokens: number): Promise<number> {
  const calls = Math.max(minCalls, Math.ceil(4 / n));
  const claims = await Promise.all(Array.from({ length: n }, (_, i) => claim(w, `bench-c${n}-${i % 8}`)));
  const t0 = performance.now();
  const tokens = await Promise.all(
    claims.map(async (c, i) => {
      let total = 0;
      for (let k = 0; k < calls; k++) {
        const { reply } = await chat(c, {
          messages: [{ role: 'user', content: PROMPTS[(i + k) % PROMPTS.length]! }],
          max_tokens: maxTokens,
          seed: i * 100 + k,
        });
        total += reply.usage?.completion_tokens ?? 0;
      }
      return total;
    }),
  );
  const tps = tokens.reduce((a, b) => a + b, 0) / ((performance.now() - t0) / 1000);
  await Promise.all(claims.map((c) => abort(w, c.episodeId)));
  return tps;
}

/** Tokens/s of the same requests as one-at-a-time engine calls (render + generate; no server, no batching). */
export async function unbatched(w: Worker, n: number, maxTokens: number): Promise<number> {
  let tokens = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const prompt = await w.engine.call('render', {
      messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length]! }],
    });
    const out = await w.engine.call('generate', {
      requests: [{ promptIds: prompt.tokenIds, maxTokens, temperature: 1, seed: i }],
    });
    tokens += out.results[0]!.tokenIds.length;
  }
  return tokens / ((performance.now() - t0) / 1000);
}

/** Times of one SSE stream: time to the first delta and the gaps between later deltas (ms). */
export async function timedStream(
  c: ClaimResponse,
  body: Record<string, unknown>,
): Promise<{ ttft: number; gaps: number[]; chunks: number }> {
  const t0 = performance.now();
  const res = await fetch(`${c.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: c.model, stream: true, ...body }),
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream failed: ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let last = -1;
  let ttft = -1;
  const gaps: number[] = [];
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const payload = JSON.parse(event.slice(6)) as {
        choices?: { delta?: { content?: string; tool_calls?: unknown[] } }[];
      };
      const delta = payload.choices?.[0]?.delta;
      if (!delta || (!delta.content && !delta.tool_calls)) continue;
      const now = performance.now();
      if (ttft < 0) ttft = now - t0;
      else gaps.push(now - last);
      last = now;
    }
  }
  return { ttft: Math.max(0, ttft), gaps, chunks: gaps.length + (ttft >= 0 ? 1 : 0) };
}

/** A long system prompt with tools (a few hundred tokens), shared by every episode. */
export function systemAndTools(words: number): { system: string; tools: unknown[] } {
  const rules = [
    'check every step',
    'use the calc tool for arithmetic',
    'answer with #### N on the last line',
    'keep replies short',
    'never guess a value you can compute',
    'explain briefly',
  ];
  const lines: string[] = [];
  for (let i = 0; lines.join(' ').split(' ').length < words; i++)
    lines.push(`Rule ${i + 1}: ${rules[i % rules.length]} (case ${i * 7 + 3}).`);
  const tool = (name: string, description: string, props: string[]) => ({
    type: 'function',
    function: {
      name,
      description,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(props.map((p) => [p, { type: 'string', description: `the ${p}` }])),
        required: props,
      },
    },
  });
  return {
    system: `You are a careful calculator assistant.\n${lines.join('\n')}`,
    tools: [
      tool('calc', 'Evaluate an arithmetic expression and return its value.', ['expression']),
      tool('lookup', 'Look up a constant by name in the reference table.', ['name', 'unit']),
      tool('convert', 'Convert a value between two units of the same quantity.', ['value', 'from', 'to']),
    ],
  };
}

export interface EpisodesResult {
  seconds: number;
  episodes: number;
  calls: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}

/** The system + tools prompt of about `tokens` tokens for this worker's model (rendered to count). */
export async function calibratedPrompt(
  w: Worker,
  tokens: number,
): Promise<{ system: string; tools: unknown[]; tokens: number }> {
  const count = async (words: number): Promise<number> => {
    const { system, tools } = systemAndTools(words);
    const r = await w.engine.call('render', {
      messages: [{ role: 'system', content: system }],
      tools: tools as never,
      addGenerationPrompt: false,
    });
    return r.tokenIds.length;
  };
  let lo = 1;
  let hi = 8;
  while ((await count(hi)) < tokens && hi < 1 << 14) hi *= 2;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((await count(mid)) < tokens) lo = mid;
    else hi = mid;
  }
  return { ...systemAndTools(hi), tokens: await count(hi) };
}

/** `episodes` concurrent episodes of `turns` calls; each turn appends the reply and a new message. */
export async function multiTurn(
  w: Worker,
  episodes: number,
  turns: number,
  maxTokens: number,
  prompt: { system: string; tools: unknown[] },
): Promise<EpisodesResult> {
  const { system, tools } = prompt;
  const claims = await Promise.all(Array.from({ length: episodes }, (_, i) => claim(w, `bench-turns-${i % 8}`)));
  const out: EpisodesResult = { seconds: 0, episodes, calls: 0, promptTokens: 0, cachedTokens: 0, completionTokens: 0 };
  const t0 = performance.now();
  await Promise.all(
    claims.map(async (c, e) => {
      const messages: Record<string, unknown>[] = [
        { role: 'system', content: system },
        { role: 'user', content: `Question ${e}: ${PROMPTS[e % PROMPTS.length]}` },
      ];
      for (let t = 0; t < turns; t++) {
        const { reply } = await chat(c, { messages, tools, max_tokens: maxTokens, seed: e * 100 + t });
        out.calls += 1;
        out.promptTokens += reply.usage?.prompt_tokens ?? 0;
        out.cachedTokens += reply.usage?.prompt_tokens_details?.cached_tokens ?? 0;
        out.completionTokens += reply.usage?.completion_tokens ?? 0;
        const message = reply.choices?.[0]?.message ?? { role: 'assistant', content: '' };
        // a random-init model can emit NUL, which the server refuses in requests: drop it when echoing
        messages.push({ ...message, content: message.content?.replaceAll(String.fromCharCode(0), '') ?? null });
        const call = message.tool_calls?.[0];
        if (call) messages.push({ role: 'tool', tool_call_id: call.id, content: `result ${t * 13 + e}` });
        else
          messages.push({
            role: 'user',
            content: `Turn ${t + 1}: now add ${t + 2} and explain the result in one line.`,
          });
      }
    }),
  );
  out.seconds = (performance.now() - t0) / 1000;
  await Promise.all(claims.map((c) => abort(w, c.episodeId)));
  return out;
}
