// The bundled example tasks: each one's env, task schema, generator and JSONL dataset loader.
// Envs, rewards and generators are pure; only the loaders here touch the file system.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import type { Split, TaskEnv } from '../../src/shared/task';
import { CalcTaskSchema, generateCalcTasks, type CalcTask } from './calculator-agent/dataset';
import { calculatorEnv } from './calculator-agent/env';
import { generateGuessTasks, GuessTaskSchema, type GuessTask } from './guess-number/dataset';
import { guessNumberEnv } from './guess-number/env';

export { calculatorEnv, guessNumberEnv };
export type { CalcTask, GuessTask };

export const EXAMPLE_NAMES = ['calculator-agent', 'guess-number'] as const;
export type ExampleName = (typeof EXAMPLE_NAMES)[number];

export interface Example<T> {
  name: ExampleName;
  env: TaskEnv<T>;
  schema: z.ZodType<T>;
  /** Deterministic task generator (default seeds per split). */
  generate(split: Split, count: number): T[];
  /** Sizes of the shipped `data/<split>.jsonl` files. */
  sizes: Readonly<Record<Split, number>>;
}

export const calculatorExample: Example<CalcTask> = {
  name: 'calculator-agent',
  env: calculatorEnv,
  schema: CalcTaskSchema,
  generate: (split, count) => generateCalcTasks(split, count),
  sizes: { train: 2000, eval: 200 },
};

export const guessNumberExample: Example<GuessTask> = {
  name: 'guess-number',
  env: guessNumberEnv,
  schema: GuessTaskSchema,
  generate: (split, count) => generateGuessTasks(split, count),
  sizes: { train: 1000, eval: 100 },
};

/** The shipped dataset file of an example's split. */
export const dataPath = (name: ExampleName, split: Split): string =>
  fileURLToPath(new URL(`./${name}/data/${split}.jsonl`, import.meta.url));

/** One JSON object per line, blank lines skipped. */
export const toJsonl = (items: readonly unknown[]): string => items.map((x) => JSON.stringify(x)).join('\n') + '\n';

/** Parses JSONL against a schema; errors name the source and line. */
export function parseJsonl<T>(text: string, schema: z.ZodType<T>, source: string): T[] {
  const out: T[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new Error(`${source}:${i + 1}: invalid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success)
      throw new Error(
        `${source}:${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`,
      );
    out.push(parsed.data);
  });
  return out;
}

export function loadExampleTasks<T>(example: Example<T>, split: Split, file = dataPath(example.name, split)): T[] {
  return parseJsonl(readFileSync(file, 'utf8'), example.schema, file);
}

export function loadTasks(name: 'calculator-agent', split: Split): CalcTask[];
export function loadTasks(name: 'guess-number', split: Split): GuessTask[];
export function loadTasks(name: ExampleName, split: Split): CalcTask[] | GuessTask[] {
  return name === 'calculator-agent'
    ? loadExampleTasks(calculatorExample, split)
    : loadExampleTasks(guessNumberExample, split);
}
