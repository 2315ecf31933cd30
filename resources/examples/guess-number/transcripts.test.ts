// Tests for the synthetic guess-number transcripts: each strategy's shape and the success mix.
import { describe, expect, it } from 'vitest';
import { createPrng, deriveSeed } from '../../../src/shared/prng';
import { assistantTurns } from '../../../src/shared/task';
import { generateGuessTasks } from './dataset';
import { CORRECT } from './env';
import { parseGuess } from './reward';
import { gameState, guessTranscript, type GuessBehaviour } from './transcripts';

const tasks = generateGuessTasks('train', 1000);
const guessesOf = (t: { id: string; secret: number }, b: GuessBehaviour, seed = 1): number[] =>
  assistantTurns(guessTranscript(t, createPrng(seed), b).episode.messages).map((m) => parseGuess(m)!);

describe('guessTranscript', () => {
  it('binary: exact floor-midpoint search, always within 7 guesses', () => {
    expect(guessesOf({ id: 'x', secret: 13 }, 'binary')).toEqual([50, 25, 12, 18, 15, 13]);
    for (let s = 1; s <= 100; s++) {
      const { episode } = guessTranscript({ id: 'x', secret: s }, createPrng(s), 'binary');
      expect(episode.success).toBe(true);
      expect(episode.turns).toBeLessThanOrEqual(7);
      expect(episode.messages.at(-1)?.content).toBe(CORRECT);
    }
  });

  it('steps: 10, 20, ... until told Lower', () => {
    expect(guessesOf({ id: 'x', secret: 34 }, 'steps').slice(0, 4)).toEqual([10, 20, 30, 40]);
  });

  it('repeat and ignore_hint make the mistakes they are named for', () => {
    let repeats = 0;
    let ignored = 0;
    for (const t of tasks.slice(0, 100)) {
      repeats += guessTranscript(t, createPrng(2), 'repeat').episode.metrics['repeats']!;
      ignored += guessTranscript(t, createPrng(2), 'ignore_hint').episode.metrics['ignored_hints']!;
    }
    expect(repeats).toBeGreaterThan(50);
    expect(ignored).toBeGreaterThan(50);
  });

  it('keeps every guess in 1..100 and every reply in the Guess: N format', () => {
    for (const t of tasks.slice(0, 200)) {
      for (const m of assistantTurns(guessTranscript(t, createPrng(deriveSeed(3, t.id))).episode.messages)) {
        expect(m.content).toMatch(/^Guess: \d{1,3}$/);
        const g = parseGuess(m)!;
        expect(g).toBeGreaterThanOrEqual(1);
        expect(g).toBeLessThanOrEqual(100);
      }
    }
  });

  it('mixes strategies so that most but not all transcripts succeed', () => {
    const counts: Record<GuessBehaviour, number> = { binary: 0, steps: 0, noisy_mid: 0, repeat: 0, ignore_hint: 0 };
    let successes = 0;
    for (const t of tasks) {
      const { behaviour, episode } = guessTranscript(t, createPrng(deriveSeed(4, t.id)));
      counts[behaviour]++;
      if (episode.success) successes++;
    }
    const frac = (n: number): number => n / tasks.length;
    expect(frac(successes)).toBeGreaterThan(0.7);
    expect(frac(successes)).toBeLessThan(0.88);
    expect(frac(counts.binary)).toBeGreaterThan(0.48);
    expect(frac(counts.binary)).toBeLessThan(0.62);
    expect(frac(counts.steps + counts.noisy_mid)).toBeGreaterThan(0.18);
    expect(frac(counts.repeat + counts.ignore_hint)).toBeGreaterThan(0.14);
  });
});

describe('gameState', () => {
  it('narrows the interval from the hints', () => {
    const s = gameState([
      { role: 'assistant', content: 'Guess: 50' },
      { role: 'user', content: 'Lower.' },
      { role: 'assistant', content: 'Guess: 25' },
      { role: 'user', content: 'Higher.' },
    ]);
    expect(s).toEqual({ lo: 26, hi: 49, last: 25, count: 2, sawLower: true });
  });
});
