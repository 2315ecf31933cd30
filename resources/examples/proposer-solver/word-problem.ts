// The proposed expression told as a word problem, in the phrasing of calculator-agent's templates (the
// solver is warm-started on those, and solves a bare "What is 14*14?" almost never). One phrasing per
// expression shape the templates cover: a+b, a-b, a*b, a/b, a*b+c, a*b-c, a+b-c, on whole numbers with
// a whole, non-negative answer. Any other expression has no word form (undefined). The name and the
// things are drawn from a hash of the expression, so a proposal always reads the same. Pure.
import { createPrng, fnv1a, type Prng } from '../../../src/shared/prng';

export interface WordProblem {
  /** The shape's id, e.g. `word-add`. */
  template: string;
  question: string;
}

const NAMES = ['Tom', 'Ann', 'Sam', 'Mia', 'Ben', 'Lily', 'Max', 'Zoe', 'Leo', 'Eva'];
const THINGS = ['apples', 'pens', 'cookies', 'stickers', 'marbles', 'cards', 'books', 'shells'];

interface Shape {
  id: string;
  pattern: RegExp;
  /** The question for the operands, or undefined when they make no sensible story (a negative answer). */
  tell(ns: readonly number[], n: string, x: string): string | undefined;
}

const SHAPES: readonly Shape[] = [
  {
    id: 'word-add',
    pattern: /^(\d+)\+(\d+)$/,
    tell: ([a, b], n, x) => `${n} has ${a} ${x}. ${n} buys ${b} more. How many ${x} does ${n} have now?`,
  },
  {
    id: 'word-sub',
    pattern: /^(\d+)-(\d+)$/,
    tell: ([a, b], n, x) =>
      a! >= b! ? `${n} has ${a} ${x} and gives away ${b} of them. How many ${x} are left?` : undefined,
  },
  {
    id: 'word-mul',
    pattern: /^(\d+)\*(\d+)$/,
    tell: ([a, b], _n, x) => `There are ${a} boxes with ${b} ${x} in each box. How many ${x} are there?`,
  },
  {
    id: 'word-div',
    pattern: /^(\d+)\/(\d+)$/,
    tell: ([a, b], n, x) =>
      b! > 0 && a! % b! === 0
        ? `${n} shares ${a} ${x} equally among ${b} friends. How many ${x} does each friend get?`
        : undefined,
  },
  {
    id: 'word-mul-add',
    pattern: /^(\d+)\*(\d+)\+(\d+)$/,
    tell: ([a, b, c], n, x) =>
      `${n} has ${a} bags with ${b} ${x} in each bag and ${c} more ${x}. How many ${x} does ${n} have?`,
  },
  {
    id: 'word-mul-sub',
    pattern: /^(\d+)\*(\d+)-(\d+)$/,
    tell: ([a, b, c], n, x) =>
      a! * b! >= c! ? `${n} buys ${a} packs of ${b} ${x} and gives away ${c}. How many ${x} are left?` : undefined,
  },
  {
    id: 'word-add-sub',
    pattern: /^(\d+)\+(\d+)-(\d+)$/,
    tell: ([a, b, c], n, x) =>
      a! + b! >= c! ? `${n} has ${a} ${x}, gets ${b} more and gives away ${c}. How many ${x} are left?` : undefined,
  },
];

/** The expression without spaces and without brackets around the whole of it. */
export function normalise(expression: string): string {
  let e = expression.replace(/\s+/g, '');
  while (wrapped(e)) e = e.slice(1, -1);
  return e;
}

/** Whether the bracket opening `e` closes at its last character. */
function wrapped(e: string): boolean {
  if (!e.startsWith('(')) return false;
  let depth = 0;
  for (let i = 0; i < e.length; i++) {
    depth += e[i] === '(' ? 1 : e[i] === ')' ? -1 : 0;
    if (depth === 0) return i === e.length - 1;
  }
  return false;
}

export function wordProblem(expression: string): WordProblem | undefined {
  const e = normalise(expression);
  for (const shape of SHAPES) {
    const m = shape.pattern.exec(e);
    if (!m) continue;
    const r: Prng = createPrng(fnv1a(`word:${e}`));
    const question = shape.tell(m.slice(1).map(Number), r.pick(NAMES), r.pick(THINGS));
    return question === undefined ? undefined : { template: shape.id, question };
  }
  return undefined;
}
