// The SDK against a real worker (the Python engine with the built-in model, as a child process):
// an episode played through the official openai SDK with tools, retries while paused, aborts when
// fn throws or the deadline passes, agree-sync, and SIGTERM aborting a client's in-flight episode.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EpisodeStatusSchema } from '../shared/swarm-protocol';
import { SwarmClient, SwarmError } from './index';
import { admin, REPO_ROOT, startWorkerProcess, TOKENS, type WorkerProcess } from './testing/worker-process';

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

let w: WorkerProcess;
let client: SwarmClient;
beforeAll(async () => {
  w = await startWorkerProcess(['--strategy', 'C1', '--batch', '1000', '--max-tokens', '16']);
  client = new SwarmClient({
    url: w.url,
    joinToken: TOKENS.join,
    clientId: 'sdk-test',
    retry: { initialDelayMs: 50, maxDelayMs: 200, deadlineMs: 15_000 },
  });
});
afterAll(async () => {
  await w?.stop();
});

const EpisodeDetailSchema = z.object({
  episode: z.object({ status: EpisodeStatusSchema, reason: z.string().optional() }),
});
const episodeStatus = async (id: string): Promise<string> =>
  EpisodeDetailSchema.parse(await admin(w.url, 'GET', `/swarm/v1/episodes/${id}`)).episode.status;

describe('SDK with a real worker', () => {
  it('plays an episode through the openai SDK with tools and ends it with the reward', async () => {
    const out = await client.episode({ id: 'calc-1' }, async ({ baseUrl, apiKey, model, signal }) => {
      const openai = new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0 });
      const res = await openai.chat.completions.create(
        { model, messages: [{ role: 'user', content: 'What is 12 + 7?' }], tools, max_tokens: 16 },
        { signal },
      );
      expect(res.choices).toHaveLength(1);
      return { reward: 0.5, success: false, metrics: { turns: 1 } };
    });
    expect(out).toMatchObject({
      taskId: 'calc-1',
      end: { episodeId: out.episodeId, accepted: true, pooled: true, calls: 1 },
    });
    const s = await client.status();
    expect(s.counters.ended).toBeGreaterThanOrEqual(1);
    expect(s.clients.find((c) => c.clientId === 'sdk-test')?.counters.ended).toBeGreaterThanOrEqual(1);
  });

  it('tags every claim with the code version from AGENTJET_CODE_VERSION', async () => {
    const c = SwarmClient.fromEnv({
      AGENTJET_SERVER_URL: w.url,
      AGENTJET_JOIN_TOKEN: TOKENS.join,
      AGENTJET_CLIENT_ID: 'tagged',
      AGENTJET_CODE_VERSION: 'abc123',
    });
    const claim = await c.claim({ taskId: 'tagged-1' });
    const detail = z
      .object({ episode: z.object({ codeVersion: z.string().optional() }) })
      .parse(await admin(w.url, 'GET', `/swarm/v1/episodes/${claim.episodeId}`));
    expect(detail.episode.codeVersion).toBe('abc123');
    await c.abort(claim.episodeId, 'test done');
  });

  it('keeps claiming while the worker is paused (503) and succeeds once it runs again', async () => {
    await admin(w.url, 'POST', '/swarm/v1/control/pause');
    const codes: string[] = [];
    const c = new SwarmClient({
      url: w.url,
      joinToken: TOKENS.join,
      retry: { initialDelayMs: 50, maxDelayMs: 100 },
      onRetry: (i) => codes.push(i.error.code),
    });
    const pending = c.claim({ taskId: 'paused' });
    await new Promise((r) => setTimeout(r, 400));
    await admin(w.url, 'POST', '/swarm/v1/control/start');
    const claim = await pending;
    expect(codes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(codes)).toEqual(new Set(['paused']));
    await c.abort(claim.episodeId, 'test done');
  });

  it('aborts the episode and rethrows when fn throws', async () => {
    let id = '';
    const err = await client
      .episode('boom', ({ episodeId }) => {
        id = episodeId;
        throw new Error('env crashed');
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('env crashed');
    expect(await episodeStatus(id)).toBe('aborted');
    await expect(client.end(id, { taskId: 'boom', reward: 1 })).rejects.toMatchObject({
      status: 409,
      code: 'episode_aborted',
    });
  });

  it('fires the signal and aborts the episode when the deadline passes', async () => {
    let id = '';
    let sawAbort = false;
    const err = await client
      .episode(
        'slow',
        ({ episodeId, signal }) => {
          id = episodeId;
          signal.addEventListener('abort', () => (sawAbort = true));
          return new Promise(() => undefined);
        },
        { deadlineMs: 200 },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwarmError);
    expect(err).toMatchObject({ code: 'episode_deadline' });
    expect(sawAbort).toBe(true);
    expect(await episodeStatus(id)).toBe('aborted');
  });

  it('refuses an invalid result (NaN reward): the episode is aborted, never half-counted', async () => {
    let id = '';
    const err = await client
      .episode('nan', ({ episodeId }) => {
        id = episodeId;
        return { reward: Number.NaN };
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'SwarmError', code: 'invalid_result' });
    expect(await episodeStatus(id)).toBe('aborted');
  });

  it('agrees to sync', async () => {
    expect(await client.agreeSync()).toMatchObject({
      clientId: 'sdk-test',
      agreed: true,
      progress: { strategy: 'C1' },
    });
  });

  it('on SIGTERM a client process aborts its in-flight episode before exiting', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/sdk/testing/sigterm-client.ts')], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        AGENTJET_SERVER_URL: w.url,
        AGENTJET_JOIN_TOKEN: TOKENS.join,
        AGENTJET_CLIENT_ID: 'sigterm-client',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const id = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`client did not claim: ${out}`)), 20_000);
      child.stdout.on('data', () => {
        const m = /claimed (\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(out).toContain('SIGTERM: aborting 1 in-flight episode(s)');
    expect(await episodeStatus(id)).toBe('aborted');
  });
});
