// Guess-number environment: the user holds a secret in 1..100 and answers each `Guess: N` with
// `Higher.`, `Lower.` or `Correct!`; at most 8 guesses, no tools.
import { system, user } from '../../../src/shared/chat';
import type { TaskEnv } from '../../../src/shared/task';
import { assistantTurns } from '../../../src/shared/task';
import type { GuessTask } from './dataset';
import { guessScore, MAX_GUESSES, parseGuess } from './reward';

export const GUESS_SYSTEM_PROMPT = 'You play a number guessing game. Reply as Guess: <number>.';
export const GUESS_USER_PROMPT = 'I am thinking of a number between 1 and 100. Guess it.';
export const HIGHER = 'Higher.';
export const LOWER = 'Lower.';
export const CORRECT = 'Correct!';
export const REPLY_FORMAT_HINT = 'Reply as Guess: <number>.';

export const guessNumberEnv: TaskEnv<GuessTask> = {
  name: 'guess-number',
  tools: [],
  maxTurns: MAX_GUESSES,
  initialMessages: () => [system(GUESS_SYSTEM_PROMPT), user(GUESS_USER_PROMPT)],
  respond: (task, history, assistant) => {
    const guess = parseGuess(assistant);
    if (guess === task.secret) return { kind: 'done', messages: [user(CORRECT)] };
    if (assistantTurns(history).length + 1 >= MAX_GUESSES) return { kind: 'done' };
    if (guess === null) return { kind: 'continue', messages: [user(REPLY_FORMAT_HINT)] };
    return { kind: 'continue', messages: [user(guess < task.secret ? HIGHER : LOWER)] };
  },
  score: (task, history) => guessScore(task, history),
};
