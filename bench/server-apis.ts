// Part of `npm run bench -- server`: the latency the server adds per call over the engine's own time
// (wall time minus x-agentjet-engine-ms, p50/p99), one call at a time, for each inference API —
// chat completions, the Responses API and the Messages API — on the same prompts, interleaved call
// by call (in a rotating order) so load drifts alike, and each API's excess over chat completions.
// A second chat-completions series (`chat_again`) is the A/A control: its difference from the first
// is the noise floor of these figures on this machine. Beside the HTTP figures, the CPU cost of
// what each API adds per call — parsing and translating the request into the chat path's, and
// building its answer — measured on the pure functions over many iterations (stable under load).
import { prepareRequest } from '../gpu-worker/src/swarm/chat-request';
import type { Worker } from '../gpu-worker/src/worker';
import { MessagesRequestSchema } from '../src/shared/messages/schema';
import { checkMessagesBody, messageObject, messagesToChat } from '../src/shared/messages/translate';
import { ResponsesRequestSchema } from '../src/shared/responses/schema';
import { checkResponsesBody, responseObject, responsesToChat } from '../src/shared/responses/translate';
import { blocksOfMessage } from '../src/shared/stream-blocks';
import {
  ChatCompletionRequestSchema,
  ClaimResponseSchema,
  TrainingConfigSchema,
  type ClaimResponse,
} from '../src/shared/swarm-protocol';
import { round } from './engine';
import { routePath, workerRoutes } from '../src/shared/worker-routes';

const PROMPTS = [
  'What is 345 + 678?',
  'A box holds 9 pens. How many pens are in 6 boxes?',
  'Tom has 12 apples and buys 7 more. How many now?',
];

/** The body and path of one call per API (same prompt, greedy, same length limit). */
const API_CALLS: Record<
  string,
  (prompt: string, maxTokens: number) => { path: string; body: unknown; headers?: Record<string, string> }
> = {
  chat: (p, n) => ({
    path: '/chat/completions',
    body: { messages: [{ role: 'user', content: p }], max_tokens: n, temperature: 0 },
  }),
  responses: (p, n) => ({ path: '/responses', body: { input: p, max_output_tokens: n, temperature: 0 } }),
  messages: (p, n) => ({
    path: '/messages',
    body: { model: 'm', messages: [{ role: 'user', content: p }], max_tokens: n, temperature: 0 },
  }),
  chat_again: (p, n) => ({
    path: '/chat/completions',
    body: { messages: [{ role: 'user', content: p }], max_tokens: n, temperature: 0 },
  }),
};

const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function claim(w: Worker): Promise<ClaimResponse> {
  const res = await fetch(`${w.url}${workerRoutes.claim.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.tokens.join}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: 'bench-apis', kind: 'eval' }),
  });
  if (res.status !== 201) throw new Error(`claim failed: ${res.status} ${await res.text()}`);
  return ClaimResponseSchema.parse(await res.json());
}

export type ApiOverheads = Record<string, { p50: number; p99: number }>;

/** Per-API overhead over `n` calls each (after 3 warm-up rounds), interleaved chat / responses / messages. */
export async function apiOverheads(w: Worker, n: number, maxTokens = 8): Promise<ApiOverheads> {
  const c = await claim(w);
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(API_CALLS).map((k) => [k, []]));
  const apis = Object.entries(API_CALLS);
  for (let i = 0; i < n + 3; i++) {
    for (const [api, make] of [...apis.slice(i % apis.length), ...apis.slice(0, i % apis.length)]) {
      const call = make(PROMPTS[i % PROMPTS.length]!, maxTokens);
      const t0 = performance.now();
      const res = await fetch(`${c.baseUrl}${call.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(call.body),
      });
      await res.json();
      const total = performance.now() - t0;
      if (!res.ok) throw new Error(`${api}: HTTP ${res.status}`);
      if (i >= 3) samples[api]!.push(total - Number(res.headers.get('x-agentjet-engine-ms')));
    }
  }
  await fetch(`${w.url}${routePath(workerRoutes.abort, { id: c.episodeId })}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.tokens.join}` },
  });
  return Object.fromEntries(
    Object.entries(samples).map(([api, xs]) => [api, { p50: percentile(xs, 50), p99: percentile(xs, 99) }]),
  );
}

/** Prints the table and returns the summary fields (`overhead_<api>_p50_ms`, …, the largest excess over chat, the A/A noise floor). */
export function reportApiOverheads(o: ApiOverheads, n: number): Record<string, number> {
  const chat = o['chat']!;
  const again = o['chat_again']!;
  console.log(`server overhead per call by API (${n} calls each, interleaved; excess = API − chat completions):`);
  const out: Record<string, number> = {};
  let worst = 0;
  for (const [api, v] of Object.entries(o)) {
    const d50 = v.p50 - chat.p50;
    const d99 = v.p99 - chat.p99;
    if (api === 'responses' || api === 'messages') worst = Math.max(worst, d50, d99);
    const sign = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
    console.log(
      `  ${api.padEnd(10)} p50 ${v.p50.toFixed(2)} ms · p99 ${v.p99.toFixed(2)} ms${api === 'chat' ? '' : ` · excess p50 ${sign(d50)} ms, p99 ${sign(d99)} ms`}`,
    );
    out[`overhead_${api}_p50_ms`] = round(v.p50, 2);
    out[`overhead_${api}_p99_ms`] = round(v.p99, 2);
  }
  const noise = Math.max(Math.abs(again.p50 - chat.p50), Math.abs(again.p99 - chat.p99));
  console.log(
    `largest excess of responses/messages over chat completions: ${worst.toFixed(2)} ms (target ≤ 1 ms); A/A noise floor (chat vs chat_again): ${noise.toFixed(2)} ms`,
  );
  out['api_overhead_max_excess_ms'] = round(worst, 2);
  out['api_overhead_noise_ms'] = round(noise, 2);
  return out;
}

/**
 * Microseconds per call of each API's request handling outside the engine and HTTP: schema
 * validation, translation into the chat request, `prepareRequest`, the answer object and its JSON
 * (chat completions: its own request schema and answer). Median of 5 repetitions of `n` calls.
 */
export function translationCostUs(n = 5000): Record<string, number> {
  const cfg = TrainingConfigSchema.parse({});
  const usage = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };
  const message = { role: 'assistant' as const, content: 'The answer is 1023.' };
  const prompt = PROMPTS[0]!;
  const work: Record<string, () => void> = {
    chat: () => {
      const req = ChatCompletionRequestSchema.parse({
        messages: [{ role: 'user', content: prompt }],
        max_tokens: 8,
        temperature: 0,
      });
      prepareRequest(req, cfg, 'eval');
      JSON.stringify({
        id: 'chatcmpl-x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, message: { ...message, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage,
      });
    },
    responses: () => {
      const body = { input: prompt, max_output_tokens: 8, temperature: 0 };
      checkResponsesBody(body);
      const req = ResponsesRequestSchema.parse(body);
      prepareRequest(responsesToChat(req, null).chat, cfg, 'eval');
      JSON.stringify(
        responseObject({ id: 'resp_x', createdAt: 0, model: 'm', itemBase: 'x' }, req, {
          blocks: blocksOfMessage(message, true),
          finishReason: 'stop',
          usage,
        }),
      );
    },
    messages: () => {
      const body = { model: 'm', messages: [{ role: 'user', content: prompt }], max_tokens: 8, temperature: 0 };
      checkMessagesBody(body);
      prepareRequest(messagesToChat(MessagesRequestSchema.parse(body)), cfg, 'eval');
      JSON.stringify(messageObject('msg_x', 'm', blocksOfMessage(message, false), 'stop', usage));
    },
  };
  const out: Record<string, number> = {};
  for (const [api, f] of Object.entries(work)) {
    for (let i = 0; i < 500; i++) f();
    const reps: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) f();
      reps.push(((performance.now() - t0) / n) * 1000);
    }
    out[api] = percentile(reps, 50);
  }
  return out;
}

/** Prints the translation costs and returns `translate_<api>_us` and the largest excess over chat in ms. */
export function reportTranslationCost(us: Record<string, number>): Record<string, number> {
  const chat = us['chat']!;
  console.log(
    `request + answer handling per call outside the engine and HTTP (median of 5 × 5000 calls): ${Object.entries(us)
      .map(([a, v]) => `${a} ${v.toFixed(1)} µs`)
      .join(' · ')}`,
  );
  const excess = Math.max(
    ...Object.entries(us)
      .filter(([a]) => a !== 'chat')
      .map(([, v]) => v - chat),
  );
  console.log(`  largest excess over chat completions: ${(excess / 1000).toFixed(3)} ms (target ≤ 1 ms)`);
  return {
    ...Object.fromEntries(Object.entries(us).map(([a, v]) => [`translate_${a}_us`, round(v, 1)])),
    api_translate_max_excess_ms: round(excess / 1000, 3),
  };
}
