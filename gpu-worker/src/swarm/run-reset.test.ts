// POST /swarm/v1/control/reset against a real worker (the Python engine with the built-in model):
// a trained run is checkpointed and left intact, the engine is back at its initial weights (a
// greedy call's recorded logprobs equal the ones before training), the new run folder starts at
// step 0 with the given settings, old episode keys are refused, and training goes on in it. Both run
// folders stay private: folders 0700, files 0600, the engine's checkpoint included.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse, Status } from '../../../src/shared/swarm-protocol';
import { BUILTIN_MODEL_DIR } from '../resources';
import { http, tempDir, TEST_TOKENS } from '../testing/workers';
import { startWorker, type Worker } from '../worker';
import { ResetResponseSchema } from '../../../src/shared/worker-routes';

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Everything under `root` (itself included) that others could read: folders not 0700, files not 0600. */
function notPrivate(root: string): string[] {
  const paths = [root, ...readdirSync(root, { recursive: true, encoding: 'utf8' }).map((p) => join(root, p))];
  return paths.flatMap((p) => {
    const st = statSync(p);
    const mode = st.mode & 0o777;
    return mode === (st.isDirectory() ? 0o700 : 0o600) ? [] : [`${p} ${mode.toString(8)}`];
  });
}

const status = async (url: string): Promise<Status> =>
  (await http<Status>(url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.join })).body;

async function claim(
  url: string,
  kind: 'train' | 'eval',
  taskId = 't1',
): Promise<{ c: ClaimResponse; client: OpenAI }> {
  const res = await until(
    () =>
      http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'reset-test', kind, taskId },
      }),
    (r) => r.status !== 503,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { c: res.body, client: new OpenAI({ baseURL: res.body.baseUrl, apiKey: res.body.apiKey, maxRetries: 0 }) };
}

/** A greedy eval call; the logprobs the server recorded for it. */
async function greedyLogprobs(url: string): Promise<number[]> {
  const { c, client } = await claim(url, 'eval');
  await client.chat.completions.create({
    model: c.model,
    messages: [{ role: 'user', content: 'What is 12 + 7?' }],
    max_tokens: 8,
    temperature: 0,
  });
  const ep = await http<{ timelines: { outputLogprobs: number[] }[] }>(
    url,
    'GET',
    `/swarm/v1/episodes/${c.episodeId}`,
    { token: TEST_TOKENS.admin },
  );
  await http(url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
    token: TEST_TOKENS.join,
    body: { taskId: 'probe', reward: 0 },
  });
  return ep.body.timelines[0]!.outputLogprobs;
}

/** Two train episodes with rewards 1 and 0 (a batch-level baseline needs a difference). */
async function trainOneStep(url: string, taskId = 't1'): Promise<void> {
  const before = (await status(url)).step;
  for (const reward of [1, 0]) {
    const { c, client } = await claim(url, 'train', taskId);
    await client.chat.completions.create({
      model: c.model,
      messages: [{ role: 'user', content: 'What is 2 + 2?' }],
      max_tokens: 12,
    });
    expect(
      (
        await http(url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
          token: TEST_TOKENS.join,
          body: { taskId, reward },
        })
      ).status,
    ).toBe(200);
  }
  await until(
    () => status(url),
    (s) => s.step === before + 1,
  );
}

describe('worker reset (POST /swarm/v1/control/reset)', () => {
  let w: Worker;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir('aj-reset-');
    // C1 batch 2 with reinforce: every two ended train episodes are a step; a large lr makes the change visible.
    w = await startWorker(
      {
        model: BUILTIN_MODEL_DIR,
        port: 0,
        runDir: join(dir, 'run-a'),
        threads: 1,
        seed: 1,
        training: { strategy: 'C1', batch: 2, algo: 'reinforce', lr: 3e-3, checkpointEvery: 0, defaultMaxTokens: 12 },
      },
      {
        tokens: TEST_TOKENS,
        log: (l) => process.env['RESET_DEBUG'] && console.log(Date.now() % 100000, l),
        sweepIntervalMs: 50,
      },
    );
  });
  afterAll(async () => {
    await w?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the wrong token and bad bodies', async () => {
    expect((await http(w.url, 'POST', '/swarm/v1/control/reset', { token: TEST_TOKENS.join, body: {} })).status).toBe(
      403,
    );
    const bad = await http<{ error: { code: string; message: string } }>(w.url, 'POST', '/swarm/v1/control/reset', {
      token: TEST_TOKENS.admin,
      body: { config: { training: { lr: -1 } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('lr');
    expect(
      (await http(w.url, 'POST', '/swarm/v1/control/reset', { token: TEST_TOKENS.admin, body: { nope: 1 } })).status,
    ).toBe(400);
  });

  it('starts a new run from the initial weights and keeps the old run checkpointed', { timeout: 240_000 }, async () => {
    const initial = await greedyLogprobs(w.url);
    await trainOneStep(w.url);
    await trainOneStep(w.url);
    const trained = await greedyLogprobs(w.url);
    expect(trained).not.toEqual(initial);
    const open = await claim(w.url, 'train', 'left-open');

    const res = await http(w.url, 'POST', '/swarm/v1/control/reset', {
      token: TEST_TOKENS.admin,
      body: { config: { training: { lr: 1e-4, strategy: 'C2', batch: 1, groupSize: 2 }, seed: 7 }, runDir: 'run-b' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = ResetResponseSchema.parse(res.body);
    expect(r).toMatchObject({
      runDir: join(dir, 'run-b'),
      step: 0,
      weightVersion: 0,
      previous: { runDir: join(dir, 'run-a'), step: 2 },
    });
    expect(existsSync(r.previous.checkpoint)).toBe(true);
    const oldState = JSON.parse(readFileSync(join(dir, 'run-a', 'state.json'), 'utf8')) as { step: number };
    expect(oldState.step).toBe(2);

    const s = await status(w.url);
    expect(s).toMatchObject({
      state: 'running',
      step: 0,
      weightVersion: 0,
      runDir: join(dir, 'run-b'),
      counters: { claimed: 0, trainedEpisodes: 0 },
    });
    // The startup settings stay unless given: algo reinforce; the given ones apply.
    expect(s.config).toMatchObject({ lr: 1e-4, strategy: 'C2', batch: 1, groupSize: 2, algo: 'reinforce' });
    const saved = JSON.parse(readFileSync(join(dir, 'run-b', 'config.json'), 'utf8')) as {
      seed: number;
      training: { lr: number };
    };
    expect(saved).toMatchObject({ seed: 7, training: { lr: 1e-4 } });

    // The episode open across the reset was aborted; its key (old secret) is refused.
    const stale = await open.client.chat.completions
      .create({ model: open.c.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(OpenAI.APIError);
    expect([401, 404, 409]).toContain((stale as InstanceType<typeof OpenAI.APIError>).status);

    expect(await greedyLogprobs(w.url)).toEqual(initial);

    // Training goes on in the new run: one task of a group of 2 is one step there.
    await trainOneStep(w.url, 'g');
    expect(existsSync(join(dir, 'run-b', 'pool.jsonl'))).toBe(true);
    expect(notPrivate(join(dir, 'run-b'))).toEqual([]);
    expect(readdirSync(r.previous.checkpoint).length).toBeGreaterThan(0);
    expect(notPrivate(join(dir, 'run-a'))).toEqual([]);
    // Reusing a folder that holds a run is refused.
    const again = await http<{ error: { code: string } }>(w.url, 'POST', '/swarm/v1/control/reset', {
      token: TEST_TOKENS.admin,
      body: { runDir: 'run-a' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('run_dir_in_use');
  });
});
