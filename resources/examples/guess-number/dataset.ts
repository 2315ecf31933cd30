// Guess-number tasks: a secret in 1..100. The split of a secret is fixed by a hash, so train and
// eval tasks never share a secret; tasks of a split are drawn from its secrets by a seeded PRNG.
import { z } from 'zod';
import { createPrng, deriveSeed, fnv1a } from '../../../src/shared/prng';
import type { Split } from '../../../src/shared/task';

export const GUESS_MIN = 1;
export const GUESS_MAX = 100;

export const GuessTaskSchema = z.object({
  id: z.string(),
  secret: z.number().int().min(GUESS_MIN).max(GUESS_MAX),
});
export type GuessTask = z.infer<typeof GuessTaskSchema>;

/** The split a secret belongs to: about 1 in 5 secrets are eval-only. */
export const secretSplit = (secret: number): Split => (fnv1a(`guess:${secret}`) % 5 === 0 ? 'eval' : 'train');

/** All secrets of one split, ascending. */
export function splitSecrets(split: Split): number[] {
  const out: number[] = [];
  for (let s = GUESS_MIN; s <= GUESS_MAX; s++) if (secretSplit(s) === split) out.push(s);
  return out;
}

export const DEFAULT_GUESS_SEEDS: Readonly<Record<Split, number>> = { train: 3, eval: 4 };

/** `count` tasks of one split, ids `guess-<split>-<n>`; every secret of the split is used once
 *  per round before any repeats, in a seeded order. */
export function generateGuessTasks(split: Split, count: number, seed = DEFAULT_GUESS_SEEDS[split]): GuessTask[] {
  const r = createPrng(deriveSeed(seed, `guess-${split}`));
  const pool = splitSecrets(split);
  const tasks: GuessTask[] = [];
  while (tasks.length < count) {
    for (const secret of r.shuffle(pool)) {
      if (tasks.length >= count) break;
      tasks.push({ id: `guess-${split}-${tasks.length}`, secret });
    }
  }
  return tasks;
}
