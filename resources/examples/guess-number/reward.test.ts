// Tests for the guess-number reward: success within 8 guesses and the play-quality metrics.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/shared/chat';
import { user } from '../../../src/shared/chat';
import { guessScore, MAX_GUESSES, parseGuess } from './reward';

const say = (content: string | null): ChatMessage => ({ role: 'assistant', content });
const game = (...guesses: (number | string)[]): ChatMessage[] =>
  guesses.flatMap((g) => [say(typeof g === 'number' ? `Guess: ${g}` : g), user('...')]);

describe('parseGuess', () => {
  it.each([
    ['Guess: 50', 50],
    ['Guess:7', 7],
    ['I think so. Guess: 12.', 12],
  ])('%j -> %d', (text, n) => expect(parseGuess(say(text))).toBe(n));
  it.each([['50'], ['guess 50'], ['Guess: fifty'], [null]])('%j -> null', (text) =>
    expect(parseGuess(say(text))).toBeNull(),
  );
  it('ignores text of a turn that makes tool calls', () => {
    expect(
      parseGuess({
        role: 'assistant',
        content: 'Guess: 5',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      }),
    ).toBeNull();
  });
});

describe('guessScore', () => {
  it('rewards hitting the secret and counts guesses up to the hit', () => {
    expect(guessScore({ secret: 37 }, game(50, 25, 37))).toEqual({
      reward: 1,
      success: true,
      metrics: { guesses: 3, invalid: 0, repeats: 0, ignored_hints: 0 },
    });
  });

  it('gives 0 when the secret is never guessed', () => {
    const r = guessScore({ secret: 37 }, game(50, 25, 30));
    expect(r.reward).toBe(0);
    expect(r.success).toBe(false);
  });

  it('does not count a hit after the guess limit', () => {
    const guesses = [...Array.from({ length: MAX_GUESSES }, () => 1), 37];
    expect(guessScore({ secret: 37 }, game(...guesses)).success).toBe(false);
  });

  it('counts invalid replies, repeats, and guesses outside what the hints allow', () => {
    // secret 37: 50 -> Lower (hi 49); 60 ignores it; 60 again is a repeat; 'hmm' is invalid.
    expect(guessScore({ secret: 37 }, game(50, 60, 60, 'hmm', 37)).metrics).toEqual({
      guesses: 5,
      invalid: 1,
      repeats: 1,
      ignored_hints: 1,
    });
  });
});
