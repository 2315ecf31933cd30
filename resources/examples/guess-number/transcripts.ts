// Synthetic guess-number transcripts for the warm start, imperfect on purpose: mostly exact
// binary search, some sloppy strategies (steps of 10, noisy midpoints), some poor play (repeats,
// ignored hints). Each transcript is played against the real env.
import type { ChatMessage } from '../../../src/shared/chat';
import { runEpisodeSync, type EpisodeResult } from '../../../src/shared/episode';
import { pickWeighted, type Prng } from '../../../src/shared/prng';
import { GUESS_MAX, GUESS_MIN, type GuessTask } from './dataset';
import { guessNumberEnv, HIGHER, LOWER } from './env';
import { parseGuess } from './reward';

export type GuessBehaviour = 'binary' | 'steps' | 'noisy_mid' | 'repeat' | 'ignore_hint';

export const GUESS_BEHAVIOUR_MIX: readonly (readonly [GuessBehaviour, number])[] = [
  ['binary', 0.55],
  ['steps', 0.125],
  ['noisy_mid', 0.125],
  ['repeat', 0.1],
  ['ignore_hint', 0.1],
];

interface GameState {
  lo: number;
  hi: number;
  last: number | null;
  count: number;
  sawLower: boolean;
}

/** What the hints so far say about the secret. */
export function gameState(messages: readonly ChatMessage[]): GameState {
  const s: GameState = { lo: GUESS_MIN, hi: GUESS_MAX, last: null, count: 0, sawLower: false };
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const g = parseGuess(m);
    s.count++;
    if (g === null) return;
    s.last = g;
    const hint = messages[i + 1]?.content;
    if (hint === HIGHER) s.lo = Math.max(s.lo, g + 1);
    if (hint === LOWER) {
      s.hi = Math.min(s.hi, g - 1);
      s.sawLower = true;
    }
  });
  return s;
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** The next guess under a behaviour. */
export function nextGuess(behaviour: GuessBehaviour, s: GameState, r: Prng): number {
  const mid = Math.floor((s.lo + s.hi) / 2);
  switch (behaviour) {
    case 'binary':
      return mid;
    case 'steps':
      return s.sawLower ? mid : Math.min(GUESS_MAX, 10 * (s.count + 1));
    case 'noisy_mid':
      return clamp(mid + r.int(-6, 6), s.lo, s.hi);
    case 'repeat':
      return s.last !== null && r.chance(0.4) ? s.last : mid;
    case 'ignore_hint':
      return r.chance(0.5) ? r.int(GUESS_MIN, GUESS_MAX) : mid;
  }
}

export const guessText = (n: number): string => `Guess: ${n}`;

export interface GuessTranscript {
  behaviour: GuessBehaviour;
  episode: EpisodeResult;
}

export function guessTranscript(task: GuessTask, r: Prng, forced?: GuessBehaviour): GuessTranscript {
  const behaviour = forced ?? pickWeighted(r, GUESS_BEHAVIOUR_MIX);
  const policy = (messages: ChatMessage[]): ChatMessage => ({
    role: 'assistant',
    content: guessText(nextGuess(behaviour, gameState(messages), r)),
  });
  return { behaviour, episode: runEpisodeSync(guessNumberEnv, task, policy) };
}
