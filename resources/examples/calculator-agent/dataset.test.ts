// Tests for the calculator-agent dataset: determinism, split disjointness, well-formed problems.
import { describe, expect, it } from 'vitest';
import { evaluate } from './calc';
import { CALC_TEMPLATE_IDS, CalcTaskSchema, expressionSplit, generateCalcTasks } from './dataset';

describe('generateCalcTasks', () => {
  const train = generateCalcTasks('train', 2000);
  const evalTasks = generateCalcTasks('eval', 200);

  it('is deterministic for a seed and varies with the seed', () => {
    expect(generateCalcTasks('train', 50)).toEqual(train.slice(0, 50));
    expect(generateCalcTasks('train', 50, 99)).not.toEqual(train.slice(0, 50));
  });

  it('numbers ids per split and keeps questions distinct', () => {
    expect(train.map((t) => t.id)).toEqual(train.map((_, i) => `calc-train-${i}`));
    expect(evalTasks[0]?.id).toBe('calc-eval-0');
    expect(new Set(train.map((t) => t.question)).size).toBe(train.length);
  });

  it('never shares an expression between train and eval, whatever the seeds', () => {
    const trainExprs = new Set([...train, ...generateCalcTasks('train', 500, 123)].map((t) => t.expression));
    for (const t of [...evalTasks, ...generateCalcTasks('eval', 200, 77)]) {
      expect(trainExprs.has(t.expression)).toBe(false);
      expect(expressionSplit(t.expression)).toBe('eval');
    }
  });

  it('makes small non-negative integer answers that match the expression', () => {
    for (const t of [...train, ...evalTasks]) {
      expect(CalcTaskSchema.parse(t)).toEqual(t);
      expect(evaluate(t.expression)).toEqual({ ok: true, value: t.answer });
      expect(Number.isInteger(t.answer)).toBe(true);
      expect(t.answer).toBeGreaterThanOrEqual(0);
      expect(t.answer).toBeLessThanOrEqual(100);
      for (const n of t.question.match(/\d+/g) ?? []) expect(Number(n)).toBeLessThanOrEqual(100);
    }
  });

  it('uses every template, with one- and two-operation problems', () => {
    expect(new Set(train.map((t) => t.template))).toEqual(new Set(CALC_TEMPLATE_IDS));
    const ops = (e: string): number => (e.match(/[-+*/]/g) ?? []).length;
    expect(train.some((t) => ops(t.expression) === 1)).toBe(true);
    expect(train.some((t) => ops(t.expression) === 2)).toBe(true);
    expect(train.every((t) => ops(t.expression) >= 1 && ops(t.expression) <= 2)).toBe(true);
  });
});
