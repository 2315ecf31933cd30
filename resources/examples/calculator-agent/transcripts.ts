// Synthetic calculator-agent transcripts for the warm start, imperfect on purpose: mostly the
// right tool call and answer, sometimes no tool, an unreadable call, or a wrong expression.
// Each transcript is played against the real env, so tool replies are exactly what RL will see.
import { assistantTurns } from '../../../src/shared/task';
import { runEpisodeSync, type EpisodeResult } from '../../../src/shared/episode';
import type { ChatMessage } from '../../../src/shared/chat';
import { pickWeighted, type Prng } from '../../../src/shared/prng';
import { assistantMessageFromText, formatToolCallBlock } from '../../../src/shared/tool-calls';
import { evaluate, formatNumber } from './calc';
import type { CalcTask } from './dataset';
import { calculatorEnv } from './env';

export type CalcBehaviour = 'correct' | 'skip_tool' | 'malformed' | 'wrong_expression';

export const CALC_BEHAVIOUR_MIX: readonly (readonly [CalcBehaviour, number])[] = [
  ['correct', 0.65],
  ['skip_tool', 0.12],
  ['malformed', 0.1],
  ['wrong_expression', 0.13],
];

export const callText = (expression: string): string => formatToolCallBlock('calc', JSON.stringify({ expression }));
export const answerText = (value: string): string => `The answer is ${value}.\n#### ${value}`;

/**
 * A `<tool_call>` block the parser cannot read as a call: broken before its name and arguments
 * object are both known (past that point a streamed call has started and is closed as a call).
 */
export function malformedCallText(expression: string, r: Prng): string {
  const body = r.pick([
    `{"name": calc, "arguments": {"expression": "${expression}"}}`,
    `{"name": "calc", "arguments": "${expression}"}`,
    `{"arguments": {"expression": "${expression}"}}`,
    `{"name": "calc" "arguments": {"expression": "${expression}"}}`,
  ]);
  return `<tool_call>\n${body}\n</tool_call>`;
}

/** A near miss: the answer moved by 1–3, never negative, never the answer itself. */
export function nearMiss(answer: number, r: Prng): number {
  const offset = r.pick([-3, -2, -1, 1, 2, 3]);
  return answer + offset >= 0 ? answer + offset : answer - offset;
}

/** An expression with one operator changed or the operands of a - or / swapped; null if none differs. */
export function wrongExpression(task: CalcTask, r: Prng): string | null {
  const e = task.expression;
  const candidates: string[] = [];
  for (let i = 0; i < e.length; i++) {
    if (!'+-*/'.includes(e[i]!)) continue;
    for (const op of '+-*/') if (op !== e[i]) candidates.push(e.slice(0, i) + op + e.slice(i + 1));
  }
  const swap = /^(\d+)([-/])(\d+)$/.exec(e);
  if (swap) candidates.push(`${swap[3]}${swap[2]}${swap[1]}`);
  const scored = candidates.flatMap((c) => {
    const v = evaluate(c);
    return v.ok && v.value !== task.answer ? [{ c, nice: Number.isInteger(v.value) && v.value >= 0 }] : [];
  });
  const nice = scored.filter((s) => s.nice);
  const pool = nice.length > 0 ? nice : scored;
  return pool.length > 0 ? r.pick(pool).c : null;
}

const lastToolReply = (messages: readonly ChatMessage[]): string | null =>
  messages.findLast((m) => m.role === 'tool')?.content ?? null;

/** The assistant's raw text for its next turn under a behaviour. */
function nextText(
  task: CalcTask,
  behaviour: CalcBehaviour,
  messages: readonly ChatMessage[],
  r: Prng,
  wrongExpr: string,
): string {
  const turn = assistantTurns(messages).length;
  const reply = lastToolReply(messages);
  const guess = (): string => formatNumber(Math.max(0, task.answer + r.int(-3, 3)));
  switch (behaviour) {
    case 'skip_tool':
      return answerText(formatNumber(nearMiss(task.answer, r)));
    case 'malformed':
      return turn === 0 ? malformedCallText(task.expression, r) : answerText(guess());
    case 'correct':
    case 'wrong_expression': {
      if (turn === 0) return callText(behaviour === 'correct' ? task.expression : wrongExpr);
      return answerText(reply !== null && !reply.startsWith('error') ? reply : guess());
    }
  }
}

export interface CalcTranscript {
  behaviour: CalcBehaviour;
  episode: EpisodeResult;
}

/** One transcript: a behaviour drawn from the mix (or given), played against the env. */
export function calcTranscript(task: CalcTask, r: Prng, forced?: CalcBehaviour): CalcTranscript {
  let behaviour = forced ?? pickWeighted(r, CALC_BEHAVIOUR_MIX);
  const wrongExpr = behaviour === 'wrong_expression' ? wrongExpression(task, r) : null;
  if (behaviour === 'wrong_expression' && wrongExpr === null) behaviour = 'skip_tool';
  const policy = (messages: ChatMessage[]): ChatMessage =>
    assistantMessageFromText(
      nextText(task, behaviour, messages, r, wrongExpr ?? task.expression),
      `t${assistantTurns(messages).length}`,
    );
  return { behaviour, episode: runEpisodeSync(calculatorEnv, task, policy) };
}
