// Tests for the guess-number dataset: disjoint secrets per split, determinism, coverage.
import { describe, expect, it } from 'vitest';
import { generateGuessTasks, GuessTaskSchema, splitSecrets } from './dataset';

describe('guess-number dataset', () => {
  it('splits 1..100 into disjoint train and eval secrets', () => {
    const train = splitSecrets('train');
    const evalSecrets = splitSecrets('eval');
    expect([...train, ...evalSecrets].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(evalSecrets.length).toBeGreaterThanOrEqual(10);
    expect(evalSecrets.length).toBeLessThanOrEqual(30);
  });

  it('draws tasks only from the split, covering every secret of it', () => {
    const tasks = generateGuessTasks('train', 1000);
    const pool = new Set(splitSecrets('train'));
    expect(tasks.every((t) => pool.has(t.secret) && GuessTaskSchema.safeParse(t).success)).toBe(true);
    expect(new Set(tasks.map((t) => t.secret))).toEqual(pool);
    expect(tasks.map((t) => t.id)).toEqual(tasks.map((_, i) => `guess-train-${i}`));
    const evalTasks = generateGuessTasks('eval', 100);
    expect(evalTasks.every((t) => !pool.has(t.secret))).toBe(true);
  });

  it('is deterministic for a seed and varies with the seed', () => {
    expect(generateGuessTasks('eval', 40)).toEqual(generateGuessTasks('eval', 40));
    expect(generateGuessTasks('eval', 40, 5)).not.toEqual(generateGuessTasks('eval', 40));
  });
});
