// Proposer–solver: the proposer's task (two operands), its prompt (the calc tool is offered, since the
// tiny built-in model writes expressions as calc calls), and a lenient parser that pulls the first
// usable arithmetic expression out of the reply's tool calls or text. Pure.
import { system, user, type ChatMessage, type Tool } from '../../../src/shared/chat';
import { createPrng } from '../../../src/shared/prng';
import { evaluate } from '../calculator-agent/calc';
import { CALC_TOOL } from '../calculator-agent/env';

export interface ProposerTask {
  id: string;
  a: number;
  b: number;
}

export const PROPOSER_SYSTEM_PROMPT =
  'You write arithmetic questions. Call calc with one expression whose value is a whole number, e.g. 3 * (4 + 5).';

/** Offered to the proposer only as a way to write its expression (it is never evaluated for it). */
export const PROPOSER_TOOLS: Tool[] = [CALC_TOOL];

export function proposerMessages(task: ProposerTask): ChatMessage[] {
  return [system(PROPOSER_SYSTEM_PROMPT), user(`Write an arithmetic expression using ${task.a} and ${task.b}.`)];
}

/** Deterministic proposer tasks: operand pairs in 2..20. */
export function generateProposerTasks(count: number, seed = 1): ProposerTask[] {
  const rng = createPrng(seed);
  return Array.from({ length: count }, (_, i) => {
    const a = rng.int(2, 20);
    const b = rng.int(2, 20);
    return { id: `ps-${seed}-${i}-${a}-${b}`, a, b };
  });
}

export type Proposal =
  { ok: true; expression: string; value: number; usesOperands: boolean } | { ok: false; reason: string };

/** Runs of characters an expression can be made of (digits, operators, brackets, spaces). */
const CANDIDATE = /[\d+\-*/(). ]+/g;
const BINARY_OP = /\d\s*\)*\s*[+\-*/]\s*\(*\s*[-+]?\s*[\d.(]/;

/** The text to search: the tool calls' arguments first, then the content. */
export function proposalText(reply: Pick<ChatMessage, 'content' | 'tool_calls'>): string {
  return [...(reply.tool_calls ?? []).map((tc) => tc.function.arguments), reply.content ?? ''].join('\n');
}

/** The first candidate run that evaluates to a whole number and has a binary operator (not just a number). */
export function parseProposal(text: string | null, task: Pick<ProposerTask, 'a' | 'b'>): Proposal {
  const candidates = (text ?? '').replace(/^####/gm, ' ').match(CANDIDATE) ?? [];
  let reason = 'no arithmetic in the answer';
  for (const raw of candidates) {
    const expression = raw.trim().replace(/[.\s]+$/, '');
    if (!/\d/.test(expression)) continue;
    if (!BINARY_OP.test(expression)) {
      reason = 'trivial: no operator';
      continue;
    }
    const r = evaluate(expression);
    if (!r.ok) {
      reason = r.error;
      continue;
    }
    if (!Number.isInteger(r.value)) {
      reason = 'value is not a whole number';
      continue;
    }
    const numbers = (expression.match(/\d+(?:\.\d+)?/g) ?? []).map(Number);
    const usesOperands = numbers.includes(task.a) && numbers.includes(task.b);
    return { ok: true, expression, value: r.value, usesOperands };
  }
  return { ok: false, reason };
}
