// Calculator-agent tasks: templated word problems with one or two operations on small integers.
// Deterministic from a seed; the split of a problem is fixed by a hash of its expression, so train
// and eval never share an expression (disjoint numbers), whatever the seeds and counts.
import { z } from 'zod';
import { createPrng, deriveSeed, fnv1a, type Prng } from '../../../src/shared/prng';
import type { Split } from '../../../src/shared/task';
import { evaluate } from './calc';

export const CalcTaskSchema = z.object({
  id: z.string(),
  question: z.string(),
  expression: z.string(),
  answer: z.number(),
  template: z.string(),
});
export type CalcTask = z.infer<typeof CalcTaskSchema>;

interface Problem {
  question: string;
  expression: string;
}
interface Template {
  id: string;
  make(r: Prng): Problem;
}

const NAMES = ['Tom', 'Ann', 'Sam', 'Mia', 'Ben', 'Lily', 'Max', 'Zoe', 'Leo', 'Eva'];
const THINGS = ['apples', 'pens', 'cookies', 'stickers', 'marbles', 'cards', 'books', 'shells'];
const FOODS = ['apples', 'cookies', 'candies', 'grapes', 'plums'];
const PRICED: readonly (readonly [string, string])[] = [
  ['pen', 'pens'],
  ['book', 'books'],
  ['cake', 'cakes'],
  ['ball', 'balls'],
  ['toy', 'toys'],
];

/** Two different names. */
function twoNames(r: Prng): [string, string] {
  const [n, m] = r.shuffle(NAMES);
  return [n!, m!];
}

const TEMPLATES: readonly Template[] = [
  {
    id: 'add-buys',
    make: (r) => {
      const [n, x, a, b] = [r.pick(NAMES), r.pick(THINGS), r.int(2, 20), r.int(2, 20)];
      return {
        question: `${n} has ${a} ${x}. ${n} buys ${b} more. How many ${x} does ${n} have now?`,
        expression: `${a}+${b}`,
      };
    },
  },
  {
    id: 'add-boxes',
    make: (r) => {
      const [x, a, b] = [r.pick(THINGS), r.int(2, 20), r.int(2, 20)];
      return {
        question: `One box has ${a} ${x}. Another box has ${b} ${x}. How many ${x} are there in all?`,
        expression: `${a}+${b}`,
      };
    },
  },
  {
    id: 'add-gift',
    make: (r) => {
      const [[n, m], x, a, b] = [twoNames(r), r.pick(THINGS), r.int(2, 20), r.int(2, 20)];
      return {
        question: `${n} had ${a} ${x} and got ${b} more from ${m}. How many ${x} does ${n} have?`,
        expression: `${a}+${b}`,
      };
    },
  },
  {
    id: 'sub-eats',
    make: (r) => {
      const [n, f, a] = [r.pick(NAMES), r.pick(FOODS), r.int(5, 20)];
      const b = r.int(2, a - 1);
      return { question: `${n} has ${a} ${f} and eats ${b} of them. How many ${f} are left?`, expression: `${a}-${b}` };
    },
  },
  {
    id: 'sub-gives',
    make: (r) => {
      const [[n, m], x, a] = [twoNames(r), r.pick(THINGS), r.int(5, 20)];
      const b = r.int(2, a - 1);
      return {
        question: `${n} has ${a} ${x} and gives ${b} to ${m}. How many ${x} does ${n} have left?`,
        expression: `${a}-${b}`,
      };
    },
  },
  {
    id: 'sub-more',
    make: (r) => {
      const [[n, m], x, a] = [twoNames(r), r.pick(THINGS), r.int(5, 20)];
      const b = r.int(2, a - 1);
      return {
        question: `${n} has ${a} ${x}. ${m} has ${b} ${x}. How many more ${x} does ${n} have than ${m}?`,
        expression: `${a}-${b}`,
      };
    },
  },
  {
    id: 'mul-boxes',
    make: (r) => {
      const [x, a, b] = [r.pick(THINGS), r.int(2, 9), r.int(2, 9)];
      return {
        question: `There are ${a} boxes with ${b} ${x} in each box. How many ${x} are there?`,
        expression: `${a}*${b}`,
      };
    },
  },
  {
    id: 'mul-price',
    make: (r) => {
      const [[one, many], a, b] = [r.pick(PRICED), r.int(2, 9), r.int(2, 9)];
      return { question: `One ${one} costs ${b} dollars. How much do ${a} ${many} cost?`, expression: `${b}*${a}` };
    },
  },
  {
    id: 'mul-rows',
    make: (r) => {
      const [a, b] = [r.int(2, 9), r.int(2, 9)];
      return {
        question: `A garden has ${a} rows with ${b} plants in each row. How many plants are in the garden?`,
        expression: `${a}*${b}`,
      };
    },
  },
  {
    id: 'div-share',
    make: (r) => {
      const [n, x, b, q] = [r.pick(NAMES), r.pick(THINGS), r.int(2, 9), r.int(2, 9)];
      return {
        question: `${n} shares ${b * q} ${x} equally among ${b} friends. How many ${x} does each friend get?`,
        expression: `${b * q}/${b}`,
      };
    },
  },
  {
    id: 'div-teams',
    make: (r) => {
      const [b, q] = [r.int(2, 9), r.int(2, 9)];
      return {
        question: `There are ${b * q} kids in ${b} equal teams. How many kids are in each team?`,
        expression: `${b * q}/${b}`,
      };
    },
  },
  {
    id: 'div-boxes',
    make: (r) => {
      const [x, b, q] = [r.pick(THINGS), r.int(2, 9), r.int(2, 9)];
      return {
        question: `${b * q} ${x} are packed in boxes of ${b}. How many boxes are filled?`,
        expression: `${b * q}/${b}`,
      };
    },
  },
  {
    id: 'mul-sub',
    make: (r) => {
      const [n, x, a, b] = [r.pick(NAMES), r.pick(THINGS), r.int(2, 6), r.int(2, 9)];
      const c = r.int(1, Math.min(20, a * b - 1));
      return {
        question: `${n} buys ${a} packs of ${b} ${x} and gives away ${c}. How many ${x} are left?`,
        expression: `${a}*${b}-${c}`,
      };
    },
  },
  {
    id: 'mul-add',
    make: (r) => {
      const [n, x, a, b, c] = [r.pick(NAMES), r.pick(THINGS), r.int(2, 6), r.int(2, 9), r.int(2, 20)];
      return {
        question: `${n} has ${a} bags with ${b} ${x} in each bag and ${c} more ${x}. How many ${x} does ${n} have?`,
        expression: `${a}*${b}+${c}`,
      };
    },
  },
  {
    id: 'add-div',
    make: (r) => {
      const [n, x, c, q] = [r.pick(NAMES), r.pick(THINGS), r.int(2, 6), r.int(2, 9)];
      const a = r.int(2, c * q - 2);
      return {
        question:
          `${n} has ${a} ${x} and gets ${c * q - a} more. ${n} shares them equally among ${c} friends. ` +
          `How many ${x} does each friend get?`,
        expression: `(${a}+${c * q - a})/${c}`,
      };
    },
  },
  {
    id: 'add-sub',
    make: (r) => {
      const [n, f, a, b] = [r.pick(NAMES), r.pick(FOODS), r.int(2, 20), r.int(2, 20)];
      const c = r.int(1, a + b - 1);
      return {
        question: `${n} has ${a} ${f}, buys ${b} more and eats ${c}. How many ${f} are left?`,
        expression: `${a}+${b}-${c}`,
      };
    },
  },
  {
    id: 'change',
    make: (r) => {
      const [n, [, many], a, b] = [r.pick(NAMES), r.pick(PRICED), r.int(2, 5), r.int(2, 9)];
      const c = r.pick([10, 20, 50, 100].filter((v) => v > a * b));
      return {
        question:
          `${n} buys ${a} ${many} at ${b} dollars each and pays with ${c} dollars. ` + `How much change does ${n} get?`,
        expression: `${c}-${a}*${b}`,
      };
    },
  },
  {
    id: 'sub-mul',
    make: (r) => {
      const [x, a, c] = [r.pick(THINGS), r.int(4, 12), r.int(2, 9)];
      const b = r.int(1, a - 2);
      return {
        question:
          `A shop has ${a} boxes of ${x} and sells ${b} boxes. Each box has ${c} ${x}. How many ${x} are ` +
          'left in the shop?',
        expression: `(${a}-${b})*${c}`,
      };
    },
  },
];

export const CALC_TEMPLATE_IDS: readonly string[] = TEMPLATES.map((t) => t.id);

/** The split an expression belongs to: about 1 in 10 expressions are eval-only. */
export const expressionSplit = (expression: string): Split =>
  fnv1a(`calc:${expression}`) % 10 === 0 ? 'eval' : 'train';

export const DEFAULT_CALC_SEEDS: Readonly<Record<Split, number>> = { train: 1, eval: 2 };

/** `count` distinct problems of one split; ids `calc-<split>-<n>`. */
export function generateCalcTasks(split: Split, count: number, seed = DEFAULT_CALC_SEEDS[split]): CalcTask[] {
  const r = createPrng(deriveSeed(seed, `calc-${split}`));
  const tasks: CalcTask[] = [];
  const seen = new Set<string>();
  for (let attempts = 0; tasks.length < count; attempts++) {
    if (attempts > count * 100 + 1000) throw new Error(`could not generate ${count} distinct ${split} calc tasks`);
    const template = r.pick(TEMPLATES);
    const { question, expression } = template.make(r);
    const result = evaluate(expression);
    if (!result.ok || !Number.isInteger(result.value) || result.value < 0)
      throw new Error(`template ${template.id} made a bad problem: ${expression}`);
    if (expressionSplit(expression) !== split || seen.has(question)) continue;
    seen.add(question);
    tasks.push({
      id: `calc-${split}-${tasks.length}`,
      question,
      expression,
      answer: result.value,
      template: template.id,
    });
  }
  return tasks;
}
