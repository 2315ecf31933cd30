// Proposer–solver rewards. The solver earns 1 when calculator-agent's `#### N` rule finds the true
// value of the question; otherwise 0.1 for a well-formed `#### N` answer plus 0.1 for a well-formed calc
// call (the tiny model rarely solves at first; the shaping gives its batches some signal). The proposer earns 0.5 for a
// valid, non-trivial expression (it evaluates
// and has an operator) and 0.5 more when the solver then solves it; an invalid proposal earns 0. Pure.
import type { TaskScore } from '../../../src/shared/task';
import type { Proposal } from './proposal';

export const VALID_REWARD = 0.5;
export const SOLVED_BONUS = 0.5;

export function proposerScore(proposal: Proposal, solverSuccess: boolean): TaskScore {
  const valid = proposal.ok;
  const solved = valid && solverSuccess;
  return {
    reward: (valid ? VALID_REWARD : 0) + (solved ? SOLVED_BONUS : 0),
    success: solved,
    metrics: {
      valid: valid ? 1 : 0,
      solved: solved ? 1 : 0,
      uses_operands: proposal.ok && proposal.usesOperands ? 1 : 0,
    },
  };
}

/** Credit, when the answer is wrong, for each of: a `#### N` answer line, a parsed calc call. */
export const FORMAT_CREDIT = 0.1;

/** The solver's reward from calculator-agent's score (its success, `answered` and `used_tool` metrics). */
export function solverScore(calc: TaskScore, proposed: boolean): TaskScore {
  const shaping =
    FORMAT_CREDIT * ((calc.metrics['answered'] === 1 ? 1 : 0) + (calc.metrics['used_tool'] === 1 ? 1 : 0));
  return {
    reward: calc.success ? 1 : shaping,
    success: calc.success,
    metrics: { ...calc.metrics, proposed: proposed ? 1 : 0 },
  };
}
