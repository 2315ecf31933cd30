// GroupJudge against a fake judge: a real HTTP server on a free port that answers chat completions as
// the test says (scores, an error status, garbage, or never). The real judge — a worker — is in
// group-judge.integration.test.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupJudge } from './group-judge';

type Reply = { status: number; content: string } | 'hang';

/** The fake judge: records each request body, answers with `next()`. */
function fakeJudgeServer(next: () => Reply): { server: Server; bodies: unknown[] } {
  const bodies: unknown[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      const r = next();
      if (r === 'hang') return; // never answers: the client's timeout must end it
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r.status === 200 ? { choices: [{ message: { content: r.content } }] } : { error: 'x' }));
    });
  });
  return { server, bodies };
}

const group = (tag: string): { messages: { role: 'user' | 'assistant'; content: string }[] }[] => [
  { messages: [{ role: 'assistant', content: `${tag} a` }] },
  { messages: [{ role: 'assistant', content: `${tag} b` }] },
];
const scores = (a: number, b: number): string =>
  JSON.stringify({
    scores: [
      { trajectory_id: '1', score: a },
      { trajectory_id: '2', score: b },
    ],
  });

describe('GroupJudge (fake judge server)', () => {
  let reply: Reply = { status: 200, content: scores(0.9, 0.1) };
  const fake = fakeJudgeServer(() => reply);
  let baseUrl = '';

  beforeAll(async () => {
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => {
    fake.server.closeAllConnections();
    fake.server.close();
  });

  it('sends the rubric and the group, parses a score per rollout, and caches the group', async () => {
    const judge = new GroupJudge({ baseUrl, apiKey: 'k', model: 'judge-1', rubric: 'shorter is better' });
    reply = { status: 200, content: scores(0.9, 0.1) };
    expect(await judge.scoreGroup(group('g1'))).toEqual({ scores: [0.9, 0.1], judged: true, cached: false });
    const sent = fake.bodies.at(-1) as { model: string; messages: { content: string }[] };
    expect(sent.model).toBe('judge-1');
    expect(sent.messages[1]!.content).toContain('shorter is better');
    expect(sent.messages[1]!.content).toContain('g1 b');
    const n = fake.bodies.length;
    expect(await judge.scoreGroup(group('g1'))).toMatchObject({ scores: [0.9, 0.1], cached: true });
    expect(fake.bodies.length).toBe(n);
    expect(judge.stats).toEqual({ calls: 1, cacheHits: 1, failures: 0, overBudget: 0 });
  });

  it('falls back to the neutral score on an error status, a reply it cannot parse, and a timeout, counting each', async () => {
    const judge = new GroupJudge({ baseUrl, model: 'j', rubric: 'r', timeoutMs: 300, neutralScore: 0.25 });
    reply = { status: 500, content: '' };
    const a = await judge.scoreGroup(group('e1'));
    expect(a).toMatchObject({ scores: [0.25, 0.25], judged: false });
    expect(a.error).toMatch(/answered 500/);
    reply = { status: 200, content: 'I think the first one is better.' };
    expect((await judge.scoreGroup(group('e2'))).error).toMatch(/without a JSON object/);
    reply = 'hang';
    expect(await judge.scoreGroup(group('e3'))).toMatchObject({ scores: [0.25, 0.25], judged: false });
    expect(judge.stats.failures).toBe(3);
    // A failure is not cached: the same group asks again.
    reply = { status: 200, content: scores(0.4, 0.6) };
    expect((await judge.scoreGroup(group('e1'))).scores).toEqual([0.4, 0.6]);
  });

  it('stops asking when its budget is spent', async () => {
    const judge = new GroupJudge({ baseUrl, model: 'j', rubric: 'r', maxCalls: 1 });
    reply = { status: 200, content: scores(1, 0) };
    expect((await judge.scoreGroup(group('b1'))).judged).toBe(true);
    const n = fake.bodies.length;
    expect(await judge.scoreGroup(group('b2'))).toMatchObject({ scores: [0.5, 0.5], judged: false });
    expect(fake.bodies.length).toBe(n);
    expect(judge.stats).toMatchObject({ calls: 1, overBudget: 1 });
  });
});
