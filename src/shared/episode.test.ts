// Tests for the episode loop with a toy env and a FAKE scripted policy (no model involved).
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Tool } from './chat';
import { user } from './chat';
import { runEpisode, runEpisodeSync } from './episode';
import type { TaskEnv } from './task';
import { assistantTurns } from './task';

/** Toy env: the user says a target; each assistant turn says a number; done when it hits the target. */
interface CountTask {
  target: number;
}
const countEnv: TaskEnv<CountTask> = {
  name: 'count',
  tools: [{ type: 'function', function: { name: 'noop' } }],
  maxTurns: 5,
  initialMessages: (task) => [user(`Reach ${task.target}.`)],
  respond: (task, _history, assistant) =>
    Number(assistant.content) === task.target
      ? { kind: 'done', messages: [user('Yes.')] }
      : { kind: 'continue', messages: [user('No.')] },
  score: (task, history) => {
    const hit = assistantTurns(history).some((m) => Number(m.content) === task.target);
    return { reward: hit ? 1 : 0, success: hit, metrics: { said: assistantTurns(history).length } };
  },
};

/** FAKE policy: counts 1, 2, 3, ... by the number of assistant turns so far. */
const fakeCountingPolicy = (messages: ChatMessage[]): ChatMessage => ({
  role: 'assistant',
  content: String(assistantTurns(messages).length + 1),
});

describe('runEpisode', () => {
  it('loops until the env is done and scores the whole history', async () => {
    const seen: number[] = [];
    const tools: Tool[][] = [];
    const fakePolicy = async (messages: ChatMessage[], t: Tool[]): Promise<ChatMessage> => {
      seen.push(messages.length);
      tools.push(t);
      return fakeCountingPolicy(messages);
    };
    const r = await runEpisode(countEnv, { target: 3 }, fakePolicy);
    expect(r.turns).toBe(3);
    expect(r.success).toBe(true);
    expect(r.reward).toBe(1);
    expect(r.truncated).toBe(false);
    expect(r.metrics).toEqual({ said: 3 });
    expect(seen).toEqual([1, 3, 5]);
    expect(tools[0]).toBe(countEnv.tools);
    expect(r.messages.map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:Reach 3.',
      'assistant:1',
      'user:No.',
      'assistant:2',
      'user:No.',
      'assistant:3',
      'user:Yes.',
    ]);
  });

  it('stops at maxTurns (env or option, whichever is smaller)', async () => {
    const fakePolicy = async (messages: ChatMessage[]): Promise<ChatMessage> => fakeCountingPolicy(messages);
    const r = await runEpisode(countEnv, { target: 9 }, fakePolicy);
    expect(r.turns).toBe(5);
    expect(r.truncated).toBe(true);
    expect(r.success).toBe(false);
    const r2 = await runEpisode(countEnv, { target: 9 }, fakePolicy, { maxTurns: 2 });
    expect(r2.turns).toBe(2);
    const r3 = await runEpisode(countEnv, { target: 9 }, fakePolicy, { maxTurns: 50 });
    expect(r3.turns).toBe(5);
  });

  it('gives the policy a copy it cannot use to rewrite history', async () => {
    const fakeVandalPolicy = async (messages: ChatMessage[]): Promise<ChatMessage> => {
      messages.length = 0;
      return { role: 'assistant', content: '1' };
    };
    const r = await runEpisode(countEnv, { target: 1 }, fakeVandalPolicy);
    expect(r.messages[0]).toEqual(user('Reach 1.'));
  });

  it('rejects a policy that answers with a non-assistant role', async () => {
    const fakeBadPolicy = async (): Promise<ChatMessage> => user('hi');
    await expect(runEpisode(countEnv, { target: 1 }, fakeBadPolicy)).rejects.toThrow(/expected 'assistant'/);
  });
});

describe('runEpisodeSync', () => {
  it('matches the async runner', async () => {
    const a = runEpisodeSync(countEnv, { target: 4 }, fakeCountingPolicy);
    const b = await runEpisode(countEnv, { target: 4 }, async (m) => fakeCountingPolicy(m));
    expect(a).toEqual(b);
  });
});
