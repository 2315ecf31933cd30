// Cocktail mix: the calculator share read from AGENTJET_MIX and the per-task choice between the
// calculator-agent and guess-number tasks (seeded by the caller's PRNG).
import type { Prng } from '../../../src/shared/prng';

/** The calculator share in [0, 1]: AGENTJET_MIX, default 0.5; anything else is an error. */
export function parseMix(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 0.5;
  const mix = Number(raw);
  if (!Number.isFinite(mix) || mix < 0 || mix > 1)
    throw new Error(`AGENTJET_MIX must be a number in [0, 1], got ${raw}`);
  return mix;
}

/** A calculator task with probability `mix`, else a guess-number task (each pool non-empty when chosen). */
export function pickMixed<A, B>(rng: Prng, mix: number, calc: readonly A[], guess: readonly B[]): A | B {
  return rng.next() < mix ? rng.pick(calc) : rng.pick(guess);
}
