// Tests for the example registry: shipped datasets load, match their generators, stay disjoint.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SPLITS } from '../../src/shared/task';
import { calculatorExample, guessNumberExample, loadTasks, parseJsonl, toJsonl } from './index';

describe('shipped datasets', () => {
  it.each(SPLITS)('calculator-agent %s loads and equals the generator output', (split) => {
    const tasks = loadTasks('calculator-agent', split);
    expect(tasks).toHaveLength(calculatorExample.sizes[split]);
    expect(tasks).toEqual(calculatorExample.generate(split, calculatorExample.sizes[split]));
  });

  it.each(SPLITS)('guess-number %s loads and equals the generator output', (split) => {
    const tasks = loadTasks('guess-number', split);
    expect(tasks).toHaveLength(guessNumberExample.sizes[split]);
    expect(tasks).toEqual(guessNumberExample.generate(split, guessNumberExample.sizes[split]));
  });

  it('holds eval out: no shared expression or secret between splits', () => {
    const trainExprs = new Set(loadTasks('calculator-agent', 'train').map((t) => t.expression));
    expect(loadTasks('calculator-agent', 'eval').some((t) => trainExprs.has(t.expression))).toBe(false);
    const trainSecrets = new Set(loadTasks('guess-number', 'train').map((t) => t.secret));
    expect(loadTasks('guess-number', 'eval').some((t) => trainSecrets.has(t.secret))).toBe(false);
  });

  it('opens each shipped task with its env', () => {
    const calc = loadTasks('calculator-agent', 'eval')[0]!;
    expect(calculatorExample.env.initialMessages(calc).at(-1)?.content).toBe(calc.question);
    expect(guessNumberExample.env.initialMessages(loadTasks('guess-number', 'eval')[0]!)).toHaveLength(2);
  });
});

describe('parseJsonl', () => {
  const schema = z.object({ a: z.number() });
  it('round-trips toJsonl and skips blank lines', () => {
    expect(parseJsonl(toJsonl([{ a: 1 }, { a: 2 }]) + '\n\n', schema, 'x')).toEqual([{ a: 1 }, { a: 2 }]);
  });
  it('names the source and line of bad JSON or a schema mismatch', () => {
    expect(() => parseJsonl('{"a":1}\n{oops', schema, 'f.jsonl')).toThrow(/^f\.jsonl:2: invalid JSON/);
    expect(() => parseJsonl('{"a":"x"}', schema, 'f.jsonl')).toThrow(/^f\.jsonl:1: a: /);
  });
});
