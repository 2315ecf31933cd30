// The framework calculator clients against one real worker (the engine and built-in model): each plays two
// episodes (one task group of two) through its framework, ends both, and the server records them as ended by
// that client, every call made through the API.
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
import { StatusSchema } from '../../../src/shared/swarm-protocol';

const CLIENTS = [
  { file: 'client-agents.ts', id: 'agents-test', through: 'the OpenAI Agents SDK (Agent + run on the Responses API)' },
  { file: 'client-langchain.ts', id: 'langchain-test', through: 'LangChain.js (ChatOpenAI with the calc tool bound)' },
  { file: 'client-vercel.ts', id: 'vercel-test', through: 'the Vercel AI SDK (generateText with the calc tool)' },
] as const;

let w: WorkerProcess;
beforeAll(async () => {
  w = await startWorkerProcess(['--strategy', 'C1', '--batch', '1000', '--max-tokens', '64']);
});
afterAll(async () => {
  await w?.stop();
});

describe.each(CLIENTS)('calculator-agent $file', ({ file, id, through }) => {
  it(`plays two episodes through ${through} and the server records both as ended`, async () => {
    const env = {
      ...process.env,
      AGENTJET_SERVER_URL: w.url,
      AGENTJET_JOIN_TOKEN: TOKENS.join,
      AGENTJET_CLIENT_ID: id,
      AGENTJET_MAX_EPISODES: '2',
      AGENTJET_GROUP_SIZE: '2',
    };
    const { code, out } = await runProcess(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'resources/examples/calculator-agent', file)],
      env,
      50_000,
    );
    expect(code, out).toBe(0);
    const lines = out.split('\n').filter((l) => /^calc-train-\d+: reward [01] success (true|false)$/.test(l));
    expect(lines, out).toHaveLength(2);
    expect(out).not.toMatch(/episode failed/);
    const status = StatusSchema.parse(await admin(w.url, 'GET', '/swarm/v1/status'));
    const me = status.clients.find((c) => c.clientId === id);
    expect(me?.counters.ended).toBe(2);
    expect(me?.counters.calls).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
