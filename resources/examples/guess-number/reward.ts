// Guess-number reward: 1 when one of the first 8 guesses is the secret, else 0; with metrics on
// how the guesses were made (invalid replies, repeats, guesses that ignored an earlier hint).
import type { ChatMessage } from '../../../src/shared/chat';
import { assistantTurns, type TaskScore } from '../../../src/shared/task';

export const MAX_GUESSES = 8;

const GUESS_RE = /\bGuess:\s*(\d+)/;

/** The number in `Guess: N`, or null when the reply has none (tool calls do not count). */
export function parseGuess(m: ChatMessage): number | null {
  if ((m.tool_calls ?? []).length > 0) return null;
  const match = GUESS_RE.exec(m.content ?? '');
  return match ? Number(match[1]) : null;
}

export function guessScore(task: { secret: number }, history: readonly ChatMessage[]): TaskScore {
  const guesses = assistantTurns(history).slice(0, MAX_GUESSES).map(parseGuess);
  let lo = -Infinity;
  let hi = Infinity;
  let invalid = 0;
  let repeats = 0;
  let ignoredHints = 0;
  const seen = new Set<number>();
  let success = false;
  for (const g of guesses) {
    if (g === null) {
      invalid++;
      continue;
    }
    if (seen.has(g)) repeats++;
    else if (g < lo || g > hi) ignoredHints++;
    seen.add(g);
    if (g === task.secret) {
      success = true;
      break;
    }
    if (g < task.secret) lo = Math.max(lo, g + 1);
    else hi = Math.min(hi, g - 1);
  }
  return {
    reward: success ? 1 : 0,
    success,
    metrics: { guesses: guesses.length, invalid, repeats, ignored_hints: ignoredHints },
  };
}
