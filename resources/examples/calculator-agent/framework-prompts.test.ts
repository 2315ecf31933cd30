// Framework transparency at the token level: the six calculator clients (openai, Vercel AI SDK, fetch,
// LangChain.js, the OpenAI Agents SDK, Python) play the same task (paired order, client index 0) against one
// real worker at temperature 0, and the server records every call of each episode with the same prompt
// tokens (the first, and the one carrying the tool's answer): whatever the framework, the policy sees the
// same conversation (`npm run bench -- train --paired` compares the reward curves that follow).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  REPO_ROOT,
  runProcess,
  startWorkerProcess,
  TOKENS,
  type WorkerProcess,
} from '../../../src/sdk/testing/worker-process';
import { EpisodeDetailAnswerSchema } from '../../../src/shared/worker-routes';
import { EpisodeSummarySchema } from '../../../src/shared/swarm-protocol';
import { z } from 'zod';

const DIR = join(REPO_ROOT, 'resources/examples/calculator-agent');
const KINDS = ['openai', 'vercel', 'fetch', 'langchain', 'agents', 'python'] as const;

let w: WorkerProcess;
beforeAll(async () => {
  // Greedy: every framework's first reply is the same, so its later prompts (the tool's answer) can be compared too.
  w = await startWorkerProcess(['--strategy', 'C1', '--batch', '1000', '--max-tokens', '48', '--temperature', '0']);
});
afterAll(async () => {
  await w?.stop();
});

async function play(kind: (typeof KINDS)[number]): Promise<string> {
  const id = `prompt-${kind}-0`;
  const env = {
    ...process.env,
    AGENTJET_SERVER_URL: w.url,
    AGENTJET_JOIN_TOKEN: TOKENS.join,
    AGENTJET_CLIENT_ID: id,
    AGENTJET_MAX_EPISODES: '1',
    AGENTJET_GROUP_SIZE: '1',
    AGENTJET_PAIRED_TASKS: '1',
    PYTHONUNBUFFERED: '1',
  };
  const { code, out } =
    kind === 'python'
      ? await runProcess(process.env['PYTHON'] ?? 'python3', [join(DIR, 'client.py')], env, 50_000)
      : await runProcess(process.execPath, ['--import', 'tsx', join(DIR, `client-${kind}.ts`)], env, 50_000);
  expect(code, out).toBe(0);
  expect(out).not.toMatch(/episode failed/);
  return id;
}

describe('the six calculator clients', () => {
  it('present the same prompts, token for token, for the same task: the first, and the one after the tool answered', async () => {
    const first: Record<string, { taskId: string; prompts: number[][]; tools: string }> = {};
    for (const kind of KINDS) {
      const clientId = await play(kind);
      const list = z
        .object({ episodes: z.array(EpisodeSummarySchema) })
        .parse(await admin(w.url, 'GET', `/swarm/v1/episodes?clientId=${encodeURIComponent(clientId)}&limit=5`));
      expect(list.episodes, kind).toHaveLength(1);
      const detail = EpisodeDetailAnswerSchema.parse(
        await admin(w.url, 'GET', `/swarm/v1/episodes/${list.episodes[0]!.episodeId}`),
      );
      const calls = [...detail.timelines].sort((a, b) => a.callIndex - b.callIndex);
      first[kind] = {
        taskId: detail.episode.taskId ?? '',
        prompts: calls.map((c) => c.promptIds),
        tools: JSON.stringify(calls[0]!.tools),
      };
    }
    const ref = first['openai']!;
    // The greedy episode calls the tool, so the second prompt carries the tool's answer as each framework sent it.
    expect(ref.prompts.length).toBeGreaterThanOrEqual(2);
    for (const kind of KINDS) {
      expect(first[kind]!.taskId, kind).toBe(ref.taskId);
      expect(first[kind]!.tools, kind).toBe(ref.tools);
      expect(first[kind]!.prompts[0], kind).toEqual(ref.prompts[0]);
      expect(first[kind]!.prompts, kind).toEqual(ref.prompts);
    }
  }, 240_000);
});
