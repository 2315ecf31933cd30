// Vibe training against a fake chat-completions server that writes broken tasks first: a type
// error and a bad dataset row (caught by typecheck and the dataset check, fed back with file:line),
// then a client that crashes in its episodes (caught by a real smoke episode on a local worker with
// the built-in model, fed back with the transcript), then the working task — which passes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LlmClient } from '../llm/llm-client';
import { FakeChatServer } from '../llm/testing/fake-chat-server';
import { draftTask } from './task-draft';
import { templateDir } from './task-prompt';

const REPO = resolve(import.meta.dirname, '../../..');
const T = templateDir(REPO);
const good = (f: string): string => readFileSync(join(T, f), 'utf8');

const brokenReward = good('reward.ts').replace(
  'const success = match !== null && Number(match[1]) === task.answer;',
  'const success: number = match !== null && Number(match[1]) === task.answer;',
);
const badTrain = `${good('data/train.jsonl')}{"id": "digits-train-x", "number": "twelve"}\n`;
const crashingClient = good('client.ts').replace(
  "    const answer = res.choices[0]?.message.content ?? '';",
  "    const answer = res.choices[0]?.message.content ?? '';\n    if (answer.length >= 0) throw new Error('scoring exploded');",
);

const write = (
  files: Record<string, string>,
): { toolCalls: { name: string; arguments: Record<string, unknown> }[] } => ({
  toolCalls: [
    {
      name: 'write_task_files',
      arguments: { files: Object.entries(files).map(([path, content]) => ({ path, content })) },
    },
  ],
});

describe('vibe training loop (fake LLM, real checks)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-vibe-'));
  let fake: FakeChatServer | null = null;
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('feeds each failure back until the task passes, with a diff per round', { timeout: 600_000 }, async () => {
    fake = await FakeChatServer.start([
      write({
        'client.ts': good('client.ts'),
        'reward.ts': brokenReward,
        'data/train.jsonl': badTrain,
        'data/eval.jsonl': good('data/eval.jsonl'),
      }),
      write({
        'reward.ts': good('reward.ts'),
        'data/train.jsonl': good('data/train.jsonl'),
        'client.ts': crashingClient,
      }),
      write({ 'client.ts': good('client.ts') }),
    ]);
    const task = join(dir, 'digits');
    const rounds: number[] = [];
    const result = await draftTask(
      {
        dir: task,
        description: 'Sum the digits of a number and answer as #### N.',
        llm: { endpoint: fake.url, model: 'fake', apiKey: '' },
        rounds: 3,
        smokeEpisodes: 1,
      },
      {
        repoRoot: REPO,
        cacheDir: join(dir, 'cache'),
        log: () => undefined,
        llm: new LlmClient({ endpoint: fake.url, model: 'fake', apiKey: '' }, { maxRetries: 0 }),
        onRound: (r) => rounds.push(r.round),
      },
    );
    expect(rounds).toEqual([1, 2, 3]);
    expect(
      result.ok,
      JSON.stringify(
        result.rounds.map((r) => r.verdict.failures),
        null,
        1,
      ),
    ).toBe(true);

    const [r1, r2, r3] = result.rounds;
    const typeFailure = r1!.verdict.failures.find((f) => f.check === 'typecheck');
    expect(typeFailure).toMatchObject({ file: 'reward.ts', line: expect.any(Number) });
    expect(
      r1!.verdict.failures.some((f) => f.check === 'dataset' && f.file === 'data/train.jsonl' && f.line === 41),
    ).toBe(true);
    expect(r1!.verdict.checks.find((c) => c.name === 'smoke')).toMatchObject({ skipped: true });
    // What the LLM was told before round 2: the places.
    const told2 = String(fake.requests[1]!.messages.at(-1)?.content);
    expect(told2).toContain(`reward.ts:${typeFailure!.line}`);
    expect(told2).toContain('data/train.jsonl:41');

    const smoke = r2!.verdict.failures.find((f) => f.check === 'smoke');
    expect(smoke?.message).toContain('scoring exploded');
    expect(smoke?.transcript?.some((m) => m.role === 'assistant')).toBe(true);
    const told3 = String(fake.requests[2]!.messages.at(-1)?.content);
    expect(told3).toContain('scoring exploded');
    expect(told3).toContain('transcript of episode');

    expect(r1!.diff).toContain('+++ b/reward.ts');
    expect(r2!.diff).toContain('-  const success: number');
    expect(r3!.diff).toContain("-    if (answer.length >= 0) throw new Error('scoring exploded');");
    expect(r3!.verdict.ok).toBe(true);
    expect(readFileSync(join(task, 'client.ts'), 'utf8')).toBe(good('client.ts'));
  });
});
