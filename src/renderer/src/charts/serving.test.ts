import { describe, expect, it } from 'vitest';
import type { StepPoint } from '../../../shared/workbench-api';
import { stepPoint } from '../test-fixtures';
import { servingRows } from './serving';

const point = (step: number, serving?: StepPoint['serving']): StepPoint =>
  stepPoint(step, { time: step, ...(serving ? { serving } : {}) });

describe('servingRows', () => {
  it('charts the steps that carry prefix-cache figures', () => {
    const s = {
      promptTokens: 1000,
      prefilledTokens: 200,
      reusedTokens: 800,
      hitRate: 0.8,
      cacheBytes: 1,
      evictions: 0,
      meanBatch: 12,
      generatedTokens: 300,
    };
    expect(servingRows([point(1), point(2, s)])).toEqual([
      { step: 2, promptTokens: 1000, prefilledTokens: 200, reusedTokens: 800, hitRate: 0.8, meanBatch: 12 },
    ]);
  });
});
