// Integration: a real worker (the Python engine with the built-in model) as the group judge, reached
// through its OpenAI-compatible API with an eval episode's key. The built-in model cannot judge, so this
// checks the plumbing: the judge prompt arrives (recorded by the worker as the episode's call, rubric and
// trajectories in it), the reply is parsed or refused, a refused reply gives neutral scores and counts
// as a failure, and a judge that is gone (the worker stopped) does the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JUDGE_SYSTEM, parseJudgeReply } from '../shared/group-judge';
import type { ClaimResponse } from '../shared/swarm-protocol';
import type { Timeline } from '../shared/timeline/index';
import { GroupJudge } from './group-judge';
import { startWorkerProcess, TOKENS, type WorkerProcess } from './testing/worker-process';

async function http<T>(url: string, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.ok, `${method} ${path}: ${res.status}`).toBe(true);
  return (await res.json()) as T;
}

describe('GroupJudge with a real worker as the judge', () => {
  let worker: WorkerProcess;

  beforeAll(async () => {
    worker = await startWorkerProcess(['--strategy', 'C1', '--batch', '1000'], 240_000);
  }, 300_000);
  afterAll(async () => {
    await worker?.stop();
  });

  it('sends the prompt through the worker, and scores or falls back to neutral with the failure counted', async () => {
    const c = await http<ClaimResponse>(worker.url, 'POST', '/swarm/v1/episodes', TOKENS.join, {
      clientId: 'judge-it',
      kind: 'eval',
      taskId: 'judge',
    });
    const judge = new GroupJudge({
      baseUrl: c.baseUrl,
      apiKey: c.apiKey,
      model: c.model,
      rubric: 'The trajectory whose final answer is 5 is best.',
      maxTokens: 48,
    });
    const verdict = await judge.scoreGroup([
      {
        messages: [
          { role: 'user', content: 'calc 2+3' },
          { role: 'assistant', content: '#### 5' },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'calc 2+3' },
          { role: 'assistant', content: '#### 6' },
        ],
      },
    ]);
    const { timelines: calls } = await http<{ timelines: Timeline[] }>(
      worker.url,
      'GET',
      `/swarm/v1/episodes/${c.episodeId}`,
      TOKENS.admin,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.messages[0]!.content).toBe(JUDGE_SYSTEM);
    expect(calls[0]!.messages[1]!.content).toContain('The trajectory whose final answer is 5 is best.');
    expect(calls[0]!.messages[1]!.content).toContain('[assistant] #### 6');
    // Whatever the tiny model wrote, the verdict is exactly what parsing its reply gives.
    const reply = calls[0]!.output.content ?? '';
    let expected: number[] | null = null;
    try {
      expected = parseJudgeReply(reply, 2);
    } catch {
      expected = null;
    }
    if (expected) expect(verdict).toEqual({ scores: expected, judged: true, cached: false });
    else {
      expect(verdict).toMatchObject({ scores: [0.5, 0.5], judged: false });
      expect(judge.stats.failures).toBe(1);
    }
    expect(judge.stats.calls).toBe(1);

    // The judge's key dies with its episode: the next group is refused by the worker, and falls back.
    await http(worker.url, 'POST', `/swarm/v1/episodes/${c.episodeId}/abort`, TOKENS.join, {});
    const after = await judge.scoreGroup([
      { messages: [{ role: 'assistant', content: 'x' }] },
      { messages: [{ role: 'assistant', content: 'y' }] },
    ]);
    expect(after).toMatchObject({ scores: [0.5, 0.5], judged: false });
    expect(after.error).toMatch(/answered 4\d\d/);
  }, 300_000);
});
