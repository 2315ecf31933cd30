import { describe, expect, it } from 'vitest';
import { batchByTokens, distillAdvantages, meanReverseKl, mostDisagreeing } from './distill';

describe('distillAdvantages', () => {
  const sample = {
    lossMask: [0, 0, 1, 1, 0] as (0 | 1)[],
    advantages: 0.5,
    rolloutLogprobs: [0, 0, -1, -2, 0],
  };

  it('pure distillation: the negative reverse-KL estimate on masked tokens, 0 elsewhere', () => {
    const { advantages, figures } = distillAdvantages(sample, [-9, -9, -0.5, -3, -9], 1);
    expect(advantages).toEqual([0, 0, 0.5, -1, 0]);
    expect(figures).toEqual({ tokens: 2, reverseKlSum: -0.5 + 1, absKlSum: 0.5 + 1 });
  });

  it('weight 0 keeps the task advantage; a mix weighs both', () => {
    expect(distillAdvantages(sample, [0, 0, -0.5, -3, 0], 0).advantages).toEqual([0, 0, 0.5, 0.5, 0]);
    const mixed = distillAdvantages(sample, [0, 0, -0.5, -3, 0], 0.25).advantages;
    expect(mixed[2]).toBeCloseTo(0.75 * 0.5 + 0.25 * 0.5);
    expect(mixed[3]).toBeCloseTo(0.75 * 0.5 + 0.25 * -1);
  });

  it('reads per-token task advantages (tree samples)', () => {
    const perToken = { ...sample, advantages: [0, 0, 1, -1, 0] };
    expect(distillAdvantages(perToken, [0, 0, -1, -2, 0], 0.5).advantages).toEqual([0, 0, 0.5, -0.5, 0]);
  });

  it('refuses misaligned or non-finite logprobs and a weight outside [0, 1]', () => {
    expect(() => distillAdvantages(sample, [0, 0, 0], 1)).toThrow(/one entry per token/);
    expect(() => distillAdvantages(sample, [0, 0, Number.NEGATIVE_INFINITY, 0, 0], 1)).toThrow(/non-finite/);
    expect(() => distillAdvantages(sample, [0, 0, 0, 0, 0], 1.5)).toThrow(/not in \[0, 1\]/);
  });

  it('a teacher identical to the student gives zero signal', () => {
    expect(distillAdvantages(sample, sample.rolloutLogprobs, 1).advantages.every((a) => a === 0)).toBe(true);
  });
});

describe('meanReverseKl', () => {
  it('weights by tokens and is 0 without tokens', () => {
    expect(
      meanReverseKl([
        { tokens: 1, reverseKlSum: 1, absKlSum: 1 },
        { tokens: 3, reverseKlSum: 0, absKlSum: 2 },
      ]),
    ).toBe(0.25);
    expect(meanReverseKl([])).toBe(0);
  });
});

describe('mostDisagreeing', () => {
  const f = (tokens: number, absKlSum: number) => ({ tokens, reverseKlSum: 0, absKlSum });
  // Per-token disagreement: 0.5, 2, 0 (no tokens: last), 1, 2.
  const figures = [f(4, 2), f(1, 2), f(0, 0), f(3, 3), f(2, 4)];

  it('keeps the ⌈keep·n⌉ samples of largest mean |student − teacher| per token, in input order', () => {
    expect(mostDisagreeing(figures, 0.4)).toEqual([1, 4]);
    expect(mostDisagreeing(figures, 0.5)).toEqual([1, 3, 4]);
    expect(mostDisagreeing(figures, 0.8)).toEqual([0, 1, 3, 4]);
    expect(mostDisagreeing(figures, 0.01)).toEqual([1]);
  });

  it('keeps everything at 1 and nothing of nothing; refuses a fraction outside (0, 1]', () => {
    expect(mostDisagreeing(figures, 1)).toEqual([0, 1, 2, 3, 4]);
    expect(mostDisagreeing([], 0.5)).toEqual([]);
    expect(() => mostDisagreeing(figures, 0)).toThrow(/not in \(0, 1\]/);
    expect(() => mostDisagreeing(figures, 1.5)).toThrow(/not in \(0, 1\]/);
  });
});

describe('batchByTokens', () => {
  it('keeps order, caps tokens per batch, and puts an oversized sequence alone', () => {
    const seq = (n: number): { tokenIds: number[] } => ({ tokenIds: new Array<number>(n).fill(1) });
    const batches = batchByTokens([seq(3), seq(3), seq(10), seq(2), seq(2)], 6);
    expect(batches.map((b) => b.map((s) => s.tokenIds.length))).toEqual([[3, 3], [10], [2, 2]]);
    expect(batchByTokens([], 6)).toEqual([]);
  });
});
