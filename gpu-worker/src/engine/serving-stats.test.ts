import { describe, expect, it } from 'vitest';
import type { CacheStats } from '../../../src/shared/engine-protocol';
import { stepServing } from './serving-stats';

const stats = (n: {
  prefilled: number;
  reused: number;
  steps: number;
  decoded: number;
  sequences: number;
  evictions?: number;
  lookups?: number;
}): CacheStats => ({
  mode: 'continuous',
  batch: {
    active: 0,
    decoding: 0,
    waiting: 0,
    kvBytes: 0,
    kvBudgetBytes: 1,
    steps: n.steps,
    decodeTokens: n.decoded,
    prefillTokens: n.prefilled,
    meanDecodeBatch: 0,
    forwardSeconds: 0,
    sequences: n.sequences,
    maxRows: 1,
  },
  prefixCache: {
    enabled: true,
    blockTokens: 16,
    blocks: 4,
    bytes: 4096,
    capacityBytes: 8192,
    budgetBytes: 1 << 20,
    lookups: n.lookups ?? n.sequences,
    hits: 0,
    hitRate: 0,
    reusedTokens: n.reused,
    prefilledTokens: n.prefilled,
    tokenHitRate: 0,
    insertedBlocks: 0,
    evictions: n.evictions ?? 0,
    clears: 0,
  },
});

describe('stepServing', () => {
  it('counts what happened since the previous step', () => {
    const a = stats({ prefilled: 1000, reused: 0, steps: 10, decoded: 90, sequences: 10 });
    const b = stats({ prefilled: 1200, reused: 800, steps: 30, decoded: 390, sequences: 20, evictions: 3 });
    expect(stepServing(a, b)).toEqual({
      promptTokens: 1000,
      prefilledTokens: 200,
      reusedTokens: 800,
      hitRate: 0.8,
      cacheBytes: 4096,
      evictions: 3,
      meanBatch: 15,
      generatedTokens: 310,
    });
    expect(stepServing(null, a)).toMatchObject({ promptTokens: 1000, reusedTokens: 0, hitRate: 0, meanBatch: 9 });
  });

  it('starts from zero when the engine counters restarted, and is absent without counters', () => {
    const before = stats({ prefilled: 5000, reused: 100, steps: 50, decoded: 500, sequences: 40 });
    const after = stats({ prefilled: 300, reused: 100, steps: 5, decoded: 40, sequences: 4 });
    expect(stepServing(before, after)?.prefilledTokens).toBe(300);
    expect(stepServing(before, { mode: 'static', batch: null, prefixCache: null })).toBeUndefined();
  });
});
