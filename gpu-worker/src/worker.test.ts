// Integration: a real worker — the Python engine with the built-in model (or AGENTJET_TEST_MODEL)
// — on a free port in a temporary run dir, driven by the official openai SDK and plain HTTP.
// One worker is shared by the in-process tests; the durability test runs `agentjet worker` as a
// child process so it can be killed with SIGKILL and resumed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse, Status } from '../../src/shared/swarm-protocol';
import { BUILTIN_MODEL_DIR, REPO_ROOT } from './resources';
import { badInputCases, expectBadInputRefused, fuzzRandomRequests } from './testing/bad-input';
import { http, tempDir, TEST_TOKENS } from './testing/workers';
import { startWorker, type Worker } from './worker';

const MODEL = process.env['AGENTJET_TEST_MODEL'] ?? BUILTIN_MODEL_DIR;
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

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function claim(url: string, body: Record<string, unknown> = {}): Promise<{ c: ClaimResponse; client: OpenAI }> {
  const res = await until(
    () =>
      http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'it', ...body },
      }),
    (r) => r.status !== 503,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { c: res.body, client: new OpenAI({ baseURL: res.body.baseUrl, apiKey: res.body.apiKey, maxRetries: 0 }) };
}

const status = async (url: string): Promise<Status> =>
  (await http<Status>(url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body;

describe('swarm worker with the real engine', () => {
  let w: Worker;
  let dir: string;

  beforeAll(async () => {
    expect(existsSync(MODEL), `model folder missing: ${MODEL}`).toBe(true);
    dir = tempDir('aj-real-');
    w = await startWorker(
      {
        model: MODEL,
        port: 0,
        runDir: join(dir, 'run'),
        threads: 1,
        seed: 1,
        training: { strategy: 'C2', batch: 1, groupSize: 2, lr: 1e-4, checkpointEvery: 1, defaultMaxTokens: 24 },
      },
      { tokens: TEST_TOKENS, log: () => undefined, sweepIntervalMs: 50 },
    );
  });
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves chat completions to the openai SDK, streaming included, and records each call token-exactly', async () => {
    const { c, client } = await claim(w.url, { taskId: 'calc-1' });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 12 + 7?' }];
    const out = await client.chat.completions.create({ model: c.model, messages, tools, max_tokens: 32, seed: 3 });
    const choice = out.choices[0]!;
    expect(['stop', 'length', 'tool_calls']).toContain(choice.finish_reason);
    expect(out.usage!.completion_tokens).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({
      model: c.model,
      messages,
      tools,
      max_tokens: 32,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    const calls: string[] = [];
    for await (const chunk of stream) {
      chunks += 1;
      if (chunk.usage) usage = chunk.usage;
      text += chunk.choices[0]?.delta.content ?? '';
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) if (tc.function?.name) calls.push(tc.function.name);
    }
    expect(chunks).toBeGreaterThan(2);
    const ep = await http<{
      timelines: {
        outputIds: number[];
        outputLogprobs: number[];
        output: OpenAI.Chat.ChatCompletionMessage;
        promptIds: number[];
      }[];
    }>(w.url, 'GET', `/swarm/v1/episodes/${c.episodeId}`, { token: TEST_TOKENS.admin });
    const [first, second] = ep.body.timelines;
    expect(first!.outputIds).toHaveLength(out.usage!.completion_tokens);
    expect(first!.promptIds).toHaveLength(out.usage!.prompt_tokens);
    expect(first!.outputLogprobs.every((lp) => lp <= 0 && Number.isFinite(lp))).toBe(true);
    expect(second!.outputIds).toHaveLength(usage!.completion_tokens);
    expect(text).toBe(second!.output.content ?? '');
    expect(calls).toEqual(
      (second!.output.tool_calls ?? []).map((tc) => (tc.type === 'function' ? tc.function.name : '')),
    );
  });

  it('batches concurrent calls into shared engine decode steps', async () => {
    const { c, client } = await claim(w.url);
    const before = (await w.engine.call('cache_stats', {})).batch!;
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        client.chat.completions.create({
          model: c.model,
          messages: [{ role: 'user', content: `Hello ${i}` }],
          max_tokens: 8,
        }),
      ),
    );
    const after = (await w.engine.call('cache_stats', {})).batch!;
    expect(after.sequences - before.sequences).toBe(8);
    // more tokens were decoded than steps taken: rows shared forwards
    expect(after.decodeTokens - before.decodeTokens).toBeGreaterThan(after.steps - before.steps);
  });

  it('trains a GRPO step through the engine when a task group completes, and checkpoints it', async () => {
    for (const reward of [1, 0]) {
      const { c, client } = await claim(w.url, { taskId: 'g1' });
      await client.chat.completions.create({
        model: c.model,
        messages: [{ role: 'user', content: 'What is 2 + 2?' }],
        max_tokens: 12,
      });
      const end = await http(w.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
        token: TEST_TOKENS.join,
        body: { taskId: 'g1', reward },
      });
      expect(end.status).toBe(200);
    }
    const s = await until(
      () => status(w.url),
      (x) => x.step === 1 && x.lastCheckpoint?.step === 1,
    );
    expect(s.weightVersion).toBe(1);
    expect(s.lastStep?.loss).toEqual(expect.any(Number));
    expect(s.lastStep?.trainedTokens).toBeGreaterThan(0);
    expect(existsSync(join(w.files.checkpoints, 'step-000001'))).toBe(true);
    const { c, client } = await claim(w.url);
    const after = await client.chat.completions.create({
      model: c.model,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4,
    });
    expect(after.system_fingerprint).toBe('wv1');
  });

  it('refuses bad input with 4xx JSON errors and keeps serving with the pool intact', async () => {
    const poolBefore = (await status(w.url)).pool.episodes;
    const target = {
      url: w.url,
      tokens: TEST_TOKENS,
      bodyLimit: w.config.bodyLimitBytes,
      waitForExpiry: async () => {
        const n = (await status(w.url)).counters.expired;
        await until(
          () => status(w.url),
          (x) => x.counters.expired > n,
          5000,
        );
      },
    };
    await expectBadInputRefused(await badInputCases(target));
    await fuzzRandomRequests(target, 60);
    const s = await status(w.url);
    expect(s.pool.episodes).toBe(poolBefore);
    const { c, client } = await claim(w.url);
    expect(
      (
        await client.chat.completions.create({
          model: c.model,
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 4,
        })
      ).choices,
    ).toHaveLength(1);
  });

  it('survives the engine being killed: 503 for the call in flight, restart from the last checkpoint', async () => {
    const { c, client } = await claim(w.url);
    const pid = w.engine.pid!;
    // Hold generation so the call is certainly in flight (rendered, queued) when the engine dies.
    const paused = w.scheduler.pause();
    const inflight = client.chat.completions
      .create({ model: c.model, messages: [{ role: 'user', content: 'Tell me a long story.' }], max_tokens: 200 })
      .catch((e: unknown) => e);
    await until(
      async () => w.scheduler.pending,
      (n) => n > 0,
      10_000,
    );
    await paused;
    process.kill(pid, 'SIGKILL');
    await until(
      async () => w.engine.status,
      (st) => st !== 'ready',
      10_000,
    );
    w.scheduler.resume();
    const err = (await inflight) as { status?: number; code?: string };
    expect(err.status).toBe(503);
    expect(err.code).toBe('engine_unavailable');
    expect((await http(w.url, 'GET', '/health')).status).toBe(200);
    const s = await until(
      () => status(w.url),
      (x) => x.state === 'running' && x.engine.restarts === 1,
      60_000,
    );
    expect(s).toMatchObject({ step: 1, weightVersion: 1 });
    expect(w.engine.pid).not.toBe(pid);
    const again = await client.chat.completions.create({
      model: c.model,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4,
    });
    expect(again.system_fingerprint).toBe('wv1');
  });
});

describe('agentjet worker as a process: kill -9, --resume, SIGTERM', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

  function launch(args: string[]): Promise<{ child: ChildProcess; url: string }> {
    const child = spawn(process.execPath, [resolve(REPO_ROOT, 'bin/agentjet.mjs'), 'worker', ...args], {
      env: { ...process.env, AGENTJET_ADMIN_TOKEN: TEST_TOKENS.admin, AGENTJET_JOIN_TOKEN: TEST_TOKENS.join },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise((resolvePromise, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolvePromise({ child, url: m[1]! });
      });
      child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${err.slice(-2000)}`)));
    });
  }
  const exited = (child: ChildProcess): Promise<number | null> =>
    new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.on('exit', (code) => r(code))));

  it('keeps every answered end across kill -9 and checkpoints on SIGTERM', async () => {
    const dir = tempDir('aj-proc-');
    const runDir = join(dir, 'run');
    try {
      const first = await launch([
        '--model',
        MODEL,
        '--port',
        '0',
        '--run-dir',
        runDir,
        '--strategy',
        'C1',
        '--batch',
        '100',
        '--threads',
        '1',
        '--max-tokens',
        '8',
      ]);
      for (const task of ['a', 'b']) {
        const { c, client } = await claim(first.url, { taskId: task });
        await client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content: 'hi' }] });
        expect(
          (
            await http(first.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
              token: TEST_TOKENS.join,
              body: { taskId: task, reward: 1 },
            })
          ).status,
        ).toBe(200);
      }
      first.child.kill('SIGKILL');
      await exited(first.child);

      const second = await launch(['--resume', runDir, '--port', '0']);
      const s = await status(second.url);
      expect(s).toMatchObject({ step: 0, pool: { episodes: 2, tasks: 2 } });
      expect(s.config).toMatchObject({ strategy: 'C1', batch: 100, defaultMaxTokens: 8 });
      second.child.kill('SIGTERM');
      expect(await exited(second.child)).toBe(0);
      expect(existsSync(join(runDir, 'state.json'))).toBe(true);
      expect(existsSync(join(runDir, 'checkpoints', 'step-000000'))).toBe(true);

      const third = await launch(['--resume', runDir, '--port', '0']);
      expect((await status(third.url)).pool.episodes).toBe(2);
      third.child.kill('SIGTERM');
      expect(await exited(third.child)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
