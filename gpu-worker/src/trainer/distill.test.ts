// Integration: on-policy distillation between two real workers — the Python engine with the built-in
// model on both ends. The teacher is an ordinary worker; the student names it with --teacher-url. The
// teacher's logprobs of the student's sampled tokens arrive through POST /swarm/v1/logprobs; a task
// group whose rewards are all equal (no task signal: without a teacher it trains nothing) trains on
// the teacher's signal — its logprobs of the sampled tokens, or (a second student, --distill-top-k) its
// top-k at every trained token; with --distill-keep only the samples where the teacher disagrees most
// train; a teacher the student cannot use is refused at start with a clear message.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimResponse, Status } from '../../../src/shared/swarm-protocol';
import type { Timeline } from '../../../src/shared/timeline/index';
import { BUILTIN_MODEL_DIR } from '../resources';
import { http, tempDir, TEST_TOKENS } from '../testing/workers';
import { startWorker, type Worker } from '../worker';
import { RemoteTeacher } from './teacher';

const TEACHER_TOKENS = { admin: 'teacher-admin-token-0123456789', join: 'teacher-join-token-0123456789' };

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`not met within ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One train episode of task `t1`: one completion, then `end` with `reward`. */
async function playEpisode(url: string, reward: number): Promise<string> {
  const res = await until(
    () =>
      http<ClaimResponse>(url, 'POST', '/swarm/v1/episodes', {
        token: TEST_TOKENS.join,
        body: { clientId: 'distill-it', taskId: 't1' },
      }),
    (r) => r.status !== 503,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const c = res.body;
  const client = new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 });
  await client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content: 'calc 2+3' }] });
  const end = await http(url, 'POST', `/swarm/v1/episodes/${c.episodeId}/end`, {
    token: TEST_TOKENS.join,
    body: { taskId: 't1', reward },
  });
  expect(end.status, JSON.stringify(end.body)).toBe(200);
  return c.episodeId;
}

describe('on-policy distillation from a teacher worker', () => {
  let dir: string;
  let teacher: Worker;
  let student: Worker;
  let topStudent: Worker;

  beforeAll(async () => {
    dir = tempDir('aj-distill-');
    const base = { model: BUILTIN_MODEL_DIR, port: 0, threads: 1, seed: 1 };
    teacher = await startWorker(
      { ...base, runDir: join(dir, 'teacher'), training: { strategy: 'C1', batch: 100_000 } },
      { tokens: TEACHER_TOKENS, log: () => undefined },
    );
    const studentOf = (name: string, distillTopK: number): Promise<Worker> =>
      startWorker(
        {
          ...base,
          runDir: join(dir, name),
          teacherUrl: teacher.url,
          teacherToken: TEACHER_TOKENS.admin,
          distillTopK,
          training: { strategy: 'C2', batch: 1, groupSize: 2, defaultMaxTokens: 12, distillWeight: 1 },
        },
        { tokens: TEST_TOKENS, log: () => undefined, sweepIntervalMs: 50 },
      );
    [student, topStudent] = await Promise.all([studentOf('student', 0), studentOf('top-student', 4)]);
  }, 400_000); // two engines starting on a loaded machine take minutes
  afterAll(async () => {
    await student?.dispose();
    await topStudent?.dispose();
    await teacher?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores the student's sampled tokens with the teacher's engine, and trains a flat group on that signal", async () => {
    const ids = [await playEpisode(student.url, 1), await playEpisode(student.url, 1)];
    const timelines = (
      await http<{ timelines: Timeline[] }>(student.url, 'GET', `/swarm/v1/episodes/${ids[0]}`, {
        token: TEST_TOKENS.admin,
      })
    ).body.timelines;
    const tl = timelines[0]!;
    // Same weights on both ends: the teacher's logprob of each sampled token is the student's rollout logprob.
    const [scored] = await new RemoteTeacher(teacher.url, TEACHER_TOKENS.admin).score([
      { tokenIds: [...tl.promptIds, ...tl.outputIds] },
    ]);
    expect(scored!.top).toBeUndefined();
    const outputs = scored!.logprobs.slice(tl.promptIds.length);
    expect(outputs).toHaveLength(tl.outputLogprobs.length);
    outputs.forEach((lp, i) => expect(Math.abs(lp - tl.outputLogprobs[i]!)).toBeLessThan(2e-3));
    // Equal rewards carry no task advantage; with the teacher both episodes train.
    const s = await until(
      async () => (await http<Status>(student.url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body,
      (st) => st.counters.trainedEpisodes + st.counters.droppedEpisodes >= 2,
    );
    expect(s.counters.trainedEpisodes).toBe(2);
    expect(s.counters.droppedEpisodes).toBe(0);
    expect(s.step).toBe(1);
    // The step reports the mean reverse KL to the teacher (same weights: about 0).
    expect(Math.abs(s.lastStep?.distillReverseKl ?? Number.NaN)).toBeLessThan(2e-3);
    // The group went to the teacher as it completed, before its update asked: every sequence was scored ahead.
    expect(s.lastStep?.distillPrefetched).toBe(1);
  }, 180_000);

  it('with --distill-keep trains only the samples where the teacher disagrees most (set at run time)', async () => {
    const patched = await http(student.url, 'PATCH', '/swarm/v1/config', {
      token: TEST_TOKENS.admin,
      body: { distillKeep: 0.5, merge: 'linear' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await playEpisode(student.url, 0);
    await playEpisode(student.url, 0);
    const s = await until(
      async () => (await http<Status>(student.url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body,
      (st) => st.step >= 2,
    );
    // Two linear samples, one trains; the update still takes both episodes.
    expect(s.lastStep?.distillKept).toBe(0.5);
    expect(s.lastStep?.samples).toBe(1);
    expect(s.counters.trainedEpisodes).toBe(4);
    const refused = await http(student.url, 'PATCH', '/swarm/v1/config', {
      token: TEST_TOKENS.admin,
      body: { distillKeep: 0 },
    });
    expect(refused.status).toBe(400);
  }, 180_000);

  it("trains on the teacher's top-k at every trained token with --distill-top-k", async () => {
    const id = await playEpisode(topStudent.url, 1);
    await playEpisode(topStudent.url, 1);
    const tl = (
      await http<{ timelines: Timeline[] }>(topStudent.url, 'GET', `/swarm/v1/episodes/${id}`, {
        token: TEST_TOKENS.admin,
      })
    ).body.timelines[0]!;
    // The teacher names each position's 4 most likely tokens, most likely first; the sampled token is never likelier.
    const [scored] = await new RemoteTeacher(teacher.url, TEACHER_TOKENS.admin, { topK: 4 }).score([
      { tokenIds: [...tl.promptIds, ...tl.outputIds] },
    ]);
    const top = scored!.top!;
    expect(top.ids[0]).toEqual([]);
    for (let t = tl.promptIds.length; t < top.ids.length; t++) {
      expect(top.ids[t]).toHaveLength(4);
      const lp = top.logprobs[t]!;
      expect([...lp].sort((a, b) => b - a)).toEqual(lp);
      expect(scored!.logprobs[t]!).toBeLessThanOrEqual(lp[0]! + 1e-4);
    }
    const s = await until(
      async () => (await http<Status>(topStudent.url, 'GET', '/swarm/v1/status', { token: TEST_TOKENS.admin })).body,
      (st) => st.counters.trainedEpisodes + st.counters.droppedEpisodes >= 2,
    );
    expect(s.counters.trainedEpisodes).toBe(2);
    // Same weights: the student's probabilities of the teacher's top 4 are the teacher's, so the KL is −log of their
    // mass (> 0: the rest of the vocabulary), and the sampled-token estimate is about 0.
    expect(s.lastStep?.distillTopKl).toBeGreaterThan(0);
    expect(s.lastStep?.distillTopKl).toBeLessThan(10);
    expect(Math.abs(s.lastStep?.distillReverseKl ?? Number.NaN)).toBeLessThan(2e-3);
  }, 180_000);

  it('refuses a teacher it cannot use at start, naming why', async () => {
    const start = (teacherToken: string | undefined): Promise<Worker> =>
      startWorker(
        {
          model: BUILTIN_MODEL_DIR,
          port: 0,
          threads: 1,
          runDir: join(dir, `refused-${teacherToken ?? 'none'}`),
          teacherUrl: teacher.url,
          ...(teacherToken ? { teacherToken } : {}),
        },
        { tokens: TEST_TOKENS, log: () => undefined },
      );
    await expect(start(undefined)).rejects.toThrow(/--teacher-url needs --teacher-token/);
    await expect(start('not-the-admin-token-000000')).rejects.toThrow(/teacher .*answered 401/);
  }, 180_000);
});
