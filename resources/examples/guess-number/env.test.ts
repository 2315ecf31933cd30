// Tests for the guess-number env: hints, the end on a hit or the guess limit, bad replies.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/shared/chat';
import { user } from '../../../src/shared/chat';
import { runEpisode } from '../../../src/shared/episode';
import { CORRECT, GUESS_USER_PROMPT, guessNumberEnv, HIGHER, LOWER, REPLY_FORMAT_HINT } from './env';
import { MAX_GUESSES } from './reward';

const task = { id: 'guess-test-0', secret: 42 };
const say = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('guessNumberEnv', () => {
  it('opens with the prompt and has no tools', () => {
    const m = guessNumberEnv.initialMessages(task);
    expect(m.at(-1)).toEqual(user(GUESS_USER_PROMPT));
    expect(guessNumberEnv.tools).toEqual([]);
    expect(guessNumberEnv.maxTurns).toBe(MAX_GUESSES);
  });

  it('answers Higher, Lower, Correct', () => {
    expect(guessNumberEnv.respond(task, [], say('Guess: 10'))).toEqual({ kind: 'continue', messages: [user(HIGHER)] });
    expect(guessNumberEnv.respond(task, [], say('Guess: 90'))).toEqual({ kind: 'continue', messages: [user(LOWER)] });
    expect(guessNumberEnv.respond(task, [], say('Guess: 42'))).toEqual({ kind: 'done', messages: [user(CORRECT)] });
  });

  it('asks for the format when the reply has no guess', () => {
    expect(guessNumberEnv.respond(task, [], say('fifty'))).toEqual({
      kind: 'continue',
      messages: [user(REPLY_FORMAT_HINT)],
    });
  });

  it('ends after the last allowed guess', () => {
    const history = Array.from({ length: MAX_GUESSES - 1 }, () => [say('Guess: 1'), user(HIGHER)]).flat();
    expect(guessNumberEnv.respond(task, history, say('Guess: 2'))).toEqual({ kind: 'done' });
    expect(guessNumberEnv.respond(task, history, say('Guess: 42'))).toEqual({
      kind: 'done',
      messages: [user(CORRECT)],
    });
  });

  it('plays a full binary search with a FAKE policy', async () => {
    let lo = 1;
    let hi = 100;
    const fakeBinaryPolicy = async (messages: ChatMessage[]): Promise<ChatMessage> => {
      const last = messages.at(-1)?.content;
      const prev = Math.floor((lo + hi) / 2);
      if (last === HIGHER) lo = prev + 1;
      if (last === LOWER) hi = prev - 1;
      return say(`Guess: ${Math.floor((lo + hi) / 2)}`);
    };
    const r = await runEpisode(guessNumberEnv, task, fakeBinaryPolicy);
    expect(r.success).toBe(true);
    expect(r.messages.at(-1)).toEqual(user(CORRECT));
    expect(r.turns).toBeLessThanOrEqual(7);
  });

  it('stops a policy that never finds it after 8 guesses', async () => {
    const fakeStubbornPolicy = async (): Promise<ChatMessage> => say('Guess: 1');
    const r = await runEpisode(guessNumberEnv, task, fakeStubbornPolicy);
    expect(r.turns).toBe(MAX_GUESSES);
    expect(r.reward).toBe(0);
    expect(r.metrics['repeats']).toBe(MAX_GUESSES - 1);
  });
});
