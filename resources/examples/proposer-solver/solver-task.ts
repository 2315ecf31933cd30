// The solver's task built from a proposal: the proposed expression as a calculator-agent question
// (the solver plays calculator-agent's env unchanged). An invalid proposal falls back to `a + b`, so
// the solver still gets a well-defined question (the proposer is scored 0 for it). Pure.
import { evaluate } from '../calculator-agent/calc';
import type { CalcTask } from '../calculator-agent/dataset';
import type { Proposal, ProposerTask } from './proposal';

export function solverTask(task: ProposerTask, proposal: Proposal): CalcTask {
  const expression = proposal.ok ? proposal.expression : `${task.a} + ${task.b}`;
  const r = evaluate(expression);
  if (!r.ok) throw new Error(`solverTask: expression ${JSON.stringify(expression)} does not evaluate: ${r.error}`);
  return {
    id: `${task.id}-solve`,
    question: `What is ${expression}?`,
    expression,
    answer: r.value,
    template: proposal.ok ? 'proposed' : 'fallback',
  };
}
