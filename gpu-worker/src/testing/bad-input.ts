// The bad-input battery (issue §6), runnable against any worker: malformed JSON, wrong types,
// oversized bodies, unknown episodes, forged / expired / finished keys, double ends, non-finite
// and string rewards, absurd max_tokens, control characters and broken UTF-8 — each must get a
// 4xx with `{error: {type, code, message}}` — plus a property-based fuzz over random bodies.
// The hardening cases (issue #16) go further: hostile connections, router-level refusals,
// client ids decoded twice, unbounded rewards, a failing pool journal — and after each one the
// worker must be healthy and a normal episode must still train. The limit cases (issue #19): tool
// schemas and tool-call arguments nested 1,000 deep on every API, and Messages bodies over the
// chat limits (126,000 tool_result blocks, a 2 M-character message) — each a 400 naming the field.
import fc from 'fast-check';
import { expect } from 'vitest';
import {
  ErrorBodySchema,
  MAX_ABS_REWARD,
  type ClaimResponse,
  type Health,
  type Status,
} from '../../../src/shared/swarm-protocol';
import type { FakeFaultyFs } from './fake-faulty-fs';
import { openIdle, rawExchange, requestHead, type RawAnswer } from './sockets';
import { http, type HttpResult } from './workers';

export interface BadInputTarget {
  url: string;
  tokens: { admin: string; join: string };
  bodyLimit: number;
  /** Waits until an episode claimed with timeoutS 0.05 has expired. */
  waitForExpiry: () => Promise<void>;
}

export interface BadCase {
  name: string;
  status: number | number[];
  code?: string;
  run: () => Promise<HttpResult>;
}

function forge(key: string): string {
  const i = key.length - 7;
  return key.slice(0, i) + (key[i] === 'A' ? 'B' : 'A') + key.slice(i + 1);
}

export async function badInputCases(t: BadInputTarget): Promise<BadCase[]> {
  const { url, tokens } = t;
  const claim = async (body: Record<string, unknown> = {}): Promise<ClaimResponse> => {
    const r = await http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
      token: tokens.join,
      body: { clientId: 'fuzzer', ...body },
    });
    if (r.status !== 201) throw new Error(`claim failed: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const chatBody = { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 };
  const open = await claim();
  const ended = await claim();
  await http(url, 'POST', `/swarm/v1/episodes/${ended.episodeId}/end`, {
    token: tokens.join,
    body: { taskId: 't', reward: 0 },
  });
  const expiring = await claim({ timeoutS: 0.05 });
  await t.waitForExpiry();
  const chat = (key: string, body: unknown, headers?: Record<string, string>) =>
    http(url, 'POST', '/v1/chat/completions', { token: key, body, ...(headers ? { headers } : {}) });
  const end = (id: string, body: unknown) =>
    http(url, 'POST', `/swarm/v1/episodes/${id}/end`, { token: tokens.join, body });
  const rawEnd = (id: string, raw: string) => end(id, raw);
  const big = 'x'.repeat(t.bodyLimit + 10);

  return [
    {
      name: 'malformed JSON',
      status: 400,
      code: 'invalid_json',
      run: () => chat(open.apiKey, '{"model": "m", "messages": ['),
    },
    { name: 'JSON that is not an object', status: 400, run: () => chat(open.apiKey, '[1,2,3]') },
    {
      name: 'prototype-polluting key',
      status: 400,
      code: 'invalid_json',
      run: () => chat(open.apiKey, '{"__proto__": {"x": 1}, "messages": []}'),
    },
    {
      name: 'prototype-polluting key spelled with escapes',
      status: 400,
      code: 'invalid_json',
      run: () => chat(open.apiKey, '{"\\u005f_pr\\u006fto__": {"x": 1}, "messages": []}'),
    },
    {
      name: 'wrong types: messages a string',
      status: 400,
      code: 'invalid_request',
      run: () => chat(open.apiKey, { model: 'm', messages: 'hello' }),
    },
    {
      name: 'wrong types: role unknown',
      status: 400,
      run: () => chat(open.apiKey, { messages: [{ role: 'wizard', content: 'x' }] }),
    },
    {
      name: 'wrong types: temperature string',
      status: 400,
      run: () => chat(open.apiKey, { ...chatBody, temperature: 'hot' }),
    },
    { name: 'empty messages', status: 400, run: () => chat(open.apiKey, { messages: [] }) },
    {
      name: 'tool_calls on a user message',
      status: 400,
      run: () =>
        chat(open.apiKey, {
          messages: [
            {
              role: 'user',
              content: 'x',
              tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
          ],
        }),
    },
    {
      name: 'oversized body',
      status: 413,
      code: 'body_too_large',
      run: () => chat(open.apiKey, { messages: [{ role: 'user', content: big }] }),
    },
    {
      name: 'not JSON content type',
      status: 415,
      run: () => chat(open.apiKey, 'hello', { 'content-type': 'text/plain' }),
    },
    {
      name: 'absurd max_tokens',
      status: 400,
      code: 'max_tokens_too_large',
      run: () => chat(open.apiKey, { ...chatBody, max_tokens: 1e12 }),
    },
    { name: 'negative max_tokens', status: 400, run: () => chat(open.apiKey, { ...chatBody, max_tokens: -5 }) },
    { name: 'n > 1', status: 400, code: 'n_not_supported', run: () => chat(open.apiKey, { ...chatBody, n: 3 }) },
    {
      name: 'NUL character in content',
      status: 400,
      run: () => chat(open.apiKey, { messages: [{ role: 'user', content: 'a\u0000b' }] }),
    },
    {
      name: 'lone surrogate in content',
      status: 400,
      run: () => chat(open.apiKey, `{"messages":[{"role":"user","content":"\\ud800x"}]}`),
    },
    {
      name: 'raw control character inside a JSON string',
      status: 400,
      code: 'invalid_json',
      run: () => chat(open.apiKey, '{"messages":[{"role":"user","content":"a\u0001b"}]}'),
    },
    {
      name: 'broken UTF-8',
      status: 400,
      code: 'invalid_utf8',
      run: () =>
        chat(
          open.apiKey,
          Buffer.concat([
            Buffer.from('{"messages":[{"role":"user","content":"'),
            Buffer.from([0xc3, 0x28, 0xff]),
            Buffer.from('"}]}'),
          ]),
        ),
    },
    {
      name: 'control characters in a client id',
      status: 400,
      run: () => http(url, 'POST', '/swarm/v1/episodes', { token: tokens.join, body: { clientId: 'bad\u0007id' } }),
    },
    {
      name: 'no credentials',
      status: 401,
      code: 'missing_credentials',
      run: () => http(url, 'POST', '/v1/chat/completions', { body: chatBody }),
    },
    {
      name: 'not a bearer header',
      status: 401,
      run: () => http(url, 'POST', '/v1/chat/completions', { body: chatBody, headers: { authorization: 'Basic abc' } }),
    },
    { name: 'garbage key', status: 401, code: 'invalid_api_key', run: () => chat('sk-not-an-episode-key', chatBody) },
    { name: 'forged key', status: 401, code: 'invalid_episode_key', run: () => chat(forge(open.apiKey), chatBody) },
    { name: 'expired key', status: 409, code: 'episode_expired', run: () => chat(expiring.apiKey, chatBody) },
    { name: 'call after end', status: 409, code: 'episode_ended', run: () => chat(ended.apiKey, chatBody) },
    {
      name: 'double end',
      status: 409,
      code: 'episode_ended',
      run: () => end(ended.episodeId, { taskId: 't', reward: 1 }),
    },
    {
      name: 'end of an unknown episode',
      status: 404,
      code: 'episode_not_found',
      run: () => end('ep_doesnotexist00', { taskId: 't', reward: 1 }),
    },
    { name: 'end of a nonsense id', status: 404, run: () => end('../../etc/passwd', { taskId: 't', reward: 1 }) },
    {
      name: 'reward NaN (as a bare token)',
      status: 400,
      code: 'invalid_json',
      run: () => rawEnd(open.episodeId, '{"taskId":"t","reward":NaN}'),
    },
    {
      name: 'reward Infinity (as a bare token)',
      status: 400,
      code: 'invalid_json',
      run: () => rawEnd(open.episodeId, '{"taskId":"t","reward":Infinity}'),
    },
    {
      name: 'reward too large to be finite',
      status: 400,
      code: 'invalid_request',
      run: () => rawEnd(open.episodeId, '{"taskId":"t","reward":1e400}'),
    },
    {
      name: 'reward a string',
      status: 400,
      code: 'invalid_request',
      run: () => end(open.episodeId, { taskId: 't', reward: '1' }),
    },
    {
      name: 'metrics not numbers',
      status: 400,
      run: () => end(open.episodeId, { taskId: 't', reward: 1, metrics: { a: 'x' } }),
    },
    {
      name: 'abort with a wrong key',
      status: 401,
      run: () => http(url, 'POST', `/swarm/v1/episodes/${open.episodeId}/abort`, { token: ended.apiKey, body: {} }),
    },
    {
      name: 'admin route with the join token',
      status: 403,
      run: () => http(url, 'POST', '/swarm/v1/control/pause', { token: tokens.join }),
    },
    {
      name: 'config patch with an unknown key',
      status: 400,
      run: () => http(url, 'PATCH', '/swarm/v1/config', { token: tokens.admin, body: { strategy: 'C1', evil: true } }),
    },
    {
      name: 'config patch with a bad value',
      status: 400,
      run: () => http(url, 'PATCH', '/swarm/v1/config', { token: tokens.admin, body: { lr: -1 } }),
    },
    {
      name: 'events without a WebSocket upgrade',
      status: 426,
      code: 'websocket_required',
      run: () => http(url, 'GET', '/swarm/v1/events', { token: tokens.admin }),
    },
    {
      name: 'unknown route',
      status: 404,
      code: 'route_not_found',
      run: () => http(url, 'GET', '/v2/nothing', { token: tokens.admin }),
    },
    {
      name: 'bad agent header',
      status: 400,
      run: () => chat(open.apiKey, chatBody, { 'x-agentjet-agent': 'a'.repeat(100) }),
    },
  ];
}

/** Runs every case, checking status, code and the error shape. */
export async function expectBadInputRefused(cases: readonly BadCase[]): Promise<void> {
  for (const c of cases) {
    const res = await c.run();
    const statuses = Array.isArray(c.status) ? c.status : [c.status];
    expect(statuses, `${c.name}: got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`).toContain(res.status);
    const body = ErrorBodySchema.safeParse(res.body);
    expect(body.success, `${c.name}: error body ${JSON.stringify(res.body).slice(0, 300)}`).toBe(true);
    if (c.code) expect(body.data?.error.code, c.name).toBe(c.code);
    expect(body.data?.error.message.length, c.name).toBeGreaterThan(5);
  }
}

/** Random bodies, paths and credentials: never a 5xx, always a JSON answer. */
export async function fuzzRandomRequests(t: BadInputTarget, runs: number): Promise<void> {
  const paths = [
    '/v1/chat/completions',
    '/swarm/v1/episodes',
    '/swarm/v1/episodes/ep_0000000000/end',
    '/swarm/v1/clients',
    '/swarm/v1/clients/x/agree-sync',
    '/swarm/v1/config',
  ];
  const token = fc.constantFrom(undefined, t.tokens.join, t.tokens.admin, 'ajk1.ep_aaaaaaaaaaaa.zzzz', 'x');
  const body = fc.oneof(
    fc.json(),
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify({ messages: v, taskId: v, reward: v, clientId: v })),
  );
  // Client-id routes with arbitrary segments: raw, percent-encoded once or twice (decoded once).
  const segment = fc
    .string({ maxLength: 40 })
    .chain((id) =>
      fc.constantFrom(id, encodeURIComponent(id), encodeURIComponent(encodeURIComponent(id)), `${id}%`, `%${id}`),
    );
  const clientPath = fc
    .tuple(segment, fc.constantFrom('heartbeat', 'leave', 'agree-sync'))
    .map(([id, action]) => `/swarm/v1/clients/${id}/${action}`);
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.constantFrom(...paths), clientPath),
      fc.constantFrom('POST', 'PATCH'),
      token,
      body,
      async (path, method, tok, b) => {
        const res = await http(t.url, method, path, { ...(tok !== undefined ? { token: tok } : {}), body: b });
        expect(
          res.status,
          `${method} ${path} ${b.slice(0, 200)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
        ).toBeLessThan(500);
        if (res.status >= 400) expect(ErrorBodySchema.safeParse(res.body).success).toBe(true);
      },
    ),
    { numRuns: runs },
  );
}

// ---------------------------------------------------------------------------------------------
// Hardening cases (issue #16)
// ---------------------------------------------------------------------------------------------

export interface HardeningTarget {
  url: string;
  tokens: { admin: string; join: string };
  /** The worker's connection bound (maxConnectionsPerAddress); the case is skipped when unknown. */
  maxConnectionsPerAddress?: number;
  /** The worker's headers timeout in seconds; the slow-headers case is skipped when unknown. */
  headersTimeoutS?: number;
  /** The fake file system under the worker's pool journal; the journal case is skipped without it. */
  journalFs?: FakeFaultyFs;
}

const asResult = (a: RawAnswer): HttpResult => ({ status: a.status, headers: new Headers(a.headers), body: a.body });

export function hardeningCases(t: HardeningTarget): BadCase[] {
  const { url, tokens } = t;
  const join = tokens.join;
  const claimAndPlay = async (clientId: string): Promise<ClaimResponse> => {
    const c = await http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
      token: join,
      body: { clientId, taskId: 'hard' },
    });
    if (c.status !== 201) throw new Error(`claim failed: ${JSON.stringify(c.body)}`);
    await http(url, 'POST', '/v1/chat/completions', {
      token: c.body.apiKey,
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    return c.body;
  };
  const endWith = async (reward: number): Promise<HttpResult> => {
    const c = await claimAndPlay('hard-rewards');
    // A raw body: JSON.stringify cannot write 1e308 * 10 (Infinity), but it can write 1e308.
    return http(url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
      token: join,
      body: `{"taskId":"hard","reward":${reward}}`,
    });
  };
  const cases: BadCase[] = [
    {
      name: 'a body trickled with a wrong token: refused on the headers, connection closed',
      status: 401,
      code: 'invalid_api_key',
      run: async () => {
        const a = await rawExchange(url, {
          head: `${requestHead('POST', '/v1/chat/completions', { token: 'not-a-key', contentLength: 8 * 1024 * 1024 })}{"messages":[`,
          trickle: { chunk: 'x'.repeat(32), everyMs: 20 },
          timeoutMs: 15_000,
        });
        expect(a.headers['connection']).toBe('close');
        expect(a.closedAfterMs).toBeLessThan(10_000);
        return asResult(a);
      },
    },
    {
      name: 'malformed percent-encoding in the URL',
      status: 400,
      code: 'bad_url',
      run: () => http(url, 'POST', '/swarm/v1/clients/%E0%A4%A/heartbeat', { token: join }),
    },
    {
      name: 'a path segment over the router limit',
      status: 414,
      code: 'uri_too_long',
      run: () => http(url, 'POST', `/swarm/v1/clients/${'z'.repeat(3000)}/heartbeat`, { token: join }),
    },
    {
      name: 'headers over 16 KiB',
      status: 431,
      code: 'headers_too_large',
      run: async () =>
        asResult(
          await rawExchange(url, {
            head: requestHead('GET', '/health', { extra: `X-Big: ${'b'.repeat(20_000)}` }),
            timeoutMs: 10_000,
          }),
        ),
    },
    {
      name: 'not HTTP at all',
      status: 400,
      code: 'bad_request',
      run: async () => asResult(await rawExchange(url, { head: 'HELLO THERE\r\n\r\n', timeoutMs: 10_000 })),
    },
    {
      name: 'a percent-encoded % in a client id is not decoded twice (no 500)',
      status: 404,
      code: 'client_not_found',
      run: () => http(url, 'POST', '/swarm/v1/clients/100%25/heartbeat', { token: join }),
    },
    {
      name: 'a%2541 does not reach client aA',
      status: 404,
      code: 'client_not_found',
      run: async () => {
        await http(url, 'POST', '/swarm/v1/clients', { token: join, body: { clientId: 'aA' } });
        return http(url, 'POST', '/swarm/v1/clients/a%2541/heartbeat', { token: join });
      },
    },
    {
      name: 'a heartbeat of an unknown client does not register it',
      status: 404,
      code: 'client_not_found',
      run: () => http(url, 'POST', '/swarm/v1/clients/never-registered/heartbeat', { token: join }),
    },
    {
      name: 'a client id longer than any registrable one',
      status: 404,
      code: 'client_not_found',
      run: () => http(url, 'POST', `/swarm/v1/clients/${'i'.repeat(201)}/heartbeat`, { token: join }),
    },
    {
      name: 'a reward that overflows the advantages (1e308)',
      status: 400,
      code: 'invalid_request',
      run: () => endWith(1e308),
    },
    {
      name: `a reward beyond ±${MAX_ABS_REWARD}`,
      status: 400,
      code: 'invalid_request',
      run: () => endWith(-(MAX_ABS_REWARD * 10)),
    },
  ];
  if (t.maxConnectionsPerAddress !== undefined && t.maxConnectionsPerAddress > 0 && t.maxConnectionsPerAddress <= 64) {
    const max = t.maxConnectionsPerAddress;
    cases.push({
      name: `more than ${max} connections from one address`,
      status: 503,
      code: 'too_many_connections',
      run: async () => {
        const held = await Promise.all(Array.from({ length: max }, () => openIdle(url)));
        try {
          const a = await rawExchange(url, { head: requestHead('GET', '/health'), timeoutMs: 10_000 });
          expect(a.headers['retry-after']).toBe('1');
          return asResult(a);
        } finally {
          for (const h of held) h.socket.destroy();
          await Promise.all(held.map((h) => h.closed));
        }
      },
    });
  }
  if (t.headersTimeoutS !== undefined && t.headersTimeoutS <= 2) {
    cases.push({
      name: 'headers trickled slower than the headers timeout',
      status: 408,
      code: 'request_timeout',
      run: async () =>
        asResult(
          await rawExchange(url, {
            head: 'POST /swarm/v1/episodes HTTP/1.1\r\nHost: x\r\n',
            trickle: { chunk: 'X-Slow: 1\r\n', everyMs: 100 },
            timeoutMs: 15_000,
          }),
        ),
    });
  }
  if (t.journalFs) {
    const fs = t.journalFs;
    cases.push({
      name: 'the pool journal cannot be written (disk full): 503 with Retry-After, nothing pooled',
      status: 503,
      code: 'journal_unavailable',
      run: async () => {
        const c = await claimAndPlay('hard-journal');
        fs.fail('append', 'ENOSPC');
        const r = await http(url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
          token: join,
          body: { taskId: 'hard', reward: 1 },
        });
        expect(r.headers.get('retry-after')).toBe('5');
        const health = (await http<Health>(url, 'GET', '/health')).body;
        expect(health).toMatchObject({ ok: false, journal: { ok: false } });
        // The client retries, as the SDKs do on a 503: accepted now.
        const again = await http(url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
          token: join,
          body: { taskId: 'hard', reward: 1 },
        });
        expect(again.status).toBe(200);
        return r;
      },
    });
  }
  return cases;
}

/** The JSON text of a schema `levels` schemas deep: its JSON nests 2 × levels − 1 objects. */
export const deepSchemaText = (levels: number): string =>
  '{"type":"object","properties":{"a":'.repeat(levels - 1) + '{"type":"string"}' + '}}'.repeat(levels - 1);

/** Arguments (a JSON text) nested `levels` arrays deep. */
export const deepArguments = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

/** The 8 MB Messages body of the issue: 14 user messages of 9,000 tool_result blocks each. */
export function manyBlocksMessagesBody(): string {
  const blocks = Array.from({ length: 9000 }, (_, i) => ({ type: 'tool_result', tool_use_id: `t${i}`, content: 'ok' }));
  const messages = Array.from({ length: 14 }, () => ({ role: 'user', content: blocks }));
  return JSON.stringify({ model: 'm', max_tokens: 8, messages });
}

/** Issue #19: deep JSON on every API and Messages bodies over the chat limits; each a 400 naming the field. */
export function limitCases(t: Pick<HardeningTarget, 'url' | 'tokens'>): BadCase[] {
  const key = async (): Promise<string> => {
    const c = await http<ClaimResponse>(t.url, 'POST', '/swarm/v1/episodes', {
      token: t.tokens.join,
      body: { clientId: 'hard-limits', taskId: 'limits' },
    });
    if (c.status !== 201) throw new Error(`claim failed: ${JSON.stringify(c.body)}`);
    return c.body.apiKey;
  };
  const refused = (path: string, body: () => string, message: RegExp) => async (): Promise<HttpResult> => {
    const res = await http<{ error?: { message?: string } }>(t.url, 'POST', path, { token: await key(), body: body() });
    expect(res.body.error?.message, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toMatch(message);
    return res;
  };
  // ~1,000 levels of JSON, the issue's case: the engine's parser failed on it, and the call never answered.
  const deep = deepSchemaText(500);
  const call = `{"id":"c1","type":"function","function":{"name":"f","arguments":${JSON.stringify(deepArguments(1000))}}}`;
  const user = '{"role":"user","content":"hi"}';
  return [
    {
      name: 'a tool schema nested ~1,000 levels (chat completions)',
      status: 400,
      code: 'too_deep',
      run: refused(
        '/v1/chat/completions',
        () => `{"messages":[${user}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep}}}]}`,
        /^tools\[0\]\.function\.parameters\.properties\.a… nests deeper than 64 levels/,
      ),
    },
    {
      name: 'a tool schema nested ~1,000 levels (Responses)',
      status: 400,
      code: 'too_deep',
      run: refused(
        '/v1/responses',
        () => `{"input":"hi","tools":[{"type":"function","name":"f","parameters":${deep}}]}`,
        /^tools\[0\]\.parameters\.properties/,
      ),
    },
    {
      name: 'a tool schema nested ~1,000 levels (Messages)',
      status: 400,
      code: 'too_deep',
      run: refused(
        '/v1/messages',
        () => `{"model":"m","max_tokens":8,"messages":[${user}],"tools":[{"name":"f","input_schema":${deep}}]}`,
        /^tools\[0\]\.input_schema\.properties/,
      ),
    },
    {
      name: 'tool-call arguments nested 1,000 levels in the history (chat completions)',
      status: 400,
      code: 'too_deep',
      run: refused(
        '/v1/chat/completions',
        () => `{"messages":[${user},{"role":"assistant","content":null,"tool_calls":[${call}]}]}`,
        /^messages\[1\]\.tool_calls\[0\]\.function\.arguments nests deeper than 64 levels/,
      ),
    },
    {
      name: 'function_call arguments nested 1,000 levels (Responses)',
      status: 400,
      code: 'too_deep',
      run: refused(
        '/v1/responses',
        () =>
          `{"input":[${user},{"type":"function_call","call_id":"c1","name":"f","arguments":${JSON.stringify(deepArguments(1000))}}]}`,
        /^input\[1\]\.arguments nests deeper than 64 levels/,
      ),
    },
    {
      name: 'tool_use input nested ~1,000 levels (Messages)',
      status: 400,
      code: 'too_deep',
      run: refused(
        '/v1/messages',
        () =>
          `{"model":"m","max_tokens":8,"messages":[${user},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":${deep}}]}]}`,
        /^messages\[1\]\.content\[0\]\.input\.properties/,
      ),
    },
    {
      name: 'an 8 MB Messages body of 126,000 tool_result blocks',
      status: 400,
      code: 'invalid_request',
      run: refused('/v1/messages', manyBlocksMessagesBody, /^messages: 126000 content blocks and items in one request/),
    },
    {
      name: 'a 2 M-character message through Messages (chat refuses it too)',
      status: 400,
      code: 'invalid_request',
      run: refused(
        '/v1/messages',
        () =>
          JSON.stringify({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x'.repeat(2_000_000) }] }),
        /^messages\[0\]: the message is longer than this server's limit/,
      ),
    },
  ];
}

/**
 * A normal task group — two episodes of one task, rewards 1 and 0, so the group has a signal —
 * claimed, played and ended; resolves once a training step has used both (a C2 worker with
 * group size 2).
 */
export async function expectNormalEpisodeTrains(
  t: Pick<HardeningTarget, 'url' | 'tokens'>,
  taskId: string,
): Promise<void> {
  const status = async (): Promise<Status> =>
    (await http<Status>(t.url, 'GET', '/swarm/v1/status', { token: t.tokens.admin })).body;
  const before = (await status()).counters.trainedEpisodes;
  for (const reward of [1, 0]) {
    const c = await http<ClaimResponse>(t.url, 'POST', '/swarm/v1/episodes', {
      token: t.tokens.join,
      body: { clientId: 'battery-normal', taskId },
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const chat = await http(t.url, 'POST', '/v1/chat/completions', {
      token: c.body.apiKey,
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(200);
    const end = await http(t.url, 'POST', `/swarm/v1/episodes/${c.body.episodeId}/end`, {
      token: t.tokens.join,
      body: { taskId, reward },
    });
    expect(end.status, JSON.stringify(end.body)).toBe(200);
  }
  const t0 = Date.now();
  while ((await status()).counters.trainedEpisodes < before + 2) {
    if (Date.now() - t0 > 30_000) throw new Error(`the normal task group ${taskId} was not trained within 30 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Each case: its status and error shape; then the worker is healthy and a normal episode trains. */
export async function expectRefusedAndStillTraining(cases: readonly BadCase[], t: HardeningTarget): Promise<void> {
  for (const [i, c] of cases.entries()) {
    await expectBadInputRefused([c]);
    await expectNormalEpisodeTrains(t, `after-${i}`);
    const health = await http<Health>(t.url, 'GET', '/health');
    expect(health.body, `${c.name}: health afterwards`).toMatchObject({ ok: true, state: 'running' });
  }
}
