// The solver's task built from a proposal: the proposed expression as a calculator-agent question
// (the solver plays calculator-agent's env unchanged), told as a word problem in the calculator's
// phrasing where its shape has one (`word-problem.ts`), else asked bare ("What is 3 * (4 + 5)?"). An
// invalid proposal falls back to `a + b`, so the solver still gets a well-defined question (the
// proposer is scored 0 for it). The template names both: `proposed-word-mul`, `fallback-word-add`,
// `proposed-bare`. Pure.
import { evaluate } from '../calculator-agent/calc';
import type { CalcTask } from '../calculator-agent/dataset';
import type { Proposal, ProposerTask } from './proposal';
import { wordProblem } from './word-problem';

export function solverTask(task: ProposerTask, proposal: Proposal): CalcTask {
  const expression = proposal.ok ? proposal.expression : `${task.a} + ${task.b}`;
  const r = evaluate(expression);
  if (!r.ok) throw new Error(`solverTask: expression ${JSON.stringify(expression)} does not evaluate: ${r.error}`);
  const word = wordProblem(expression);
  return {
    id: `${task.id}-solve`,
    question: word?.question ?? `What is ${expression}?`,
    expression,
    answer: r.value,
    template: `${proposal.ok ? 'proposed' : 'fallback'}-${word?.template ?? 'bare'}`,
  };
}

/** 1 when the solver's question was told as a word problem (its template has a `word-` shape). */
export const worded = (calc: Pick<CalcTask, 'template'>): number => (calc.template.includes('-word-') ? 1 : 0);
