// Pure: the inference side of one training step from two snapshots of the engine's counters
// (`cache_stats` at the previous step and now): prompt tokens, how many were computed and how many
// came from the prefix cache, the cache size, evictions and the mean decode batch in between.
import type { BatchStats, CacheStats, PrefixCacheStats } from '../../../src/shared/engine-protocol';
import type { StepServing } from '../../../src/shared/swarm-protocol';

interface Counters {
  batch: BatchStats;
  prefix: PrefixCacheStats;
}

function counters(s: CacheStats | null): Counters | null {
  return s?.batch && s.prefixCache ? { batch: s.batch, prefix: s.prefixCache } : null;
}

export function stepServing(previous: CacheStats | null, now: CacheStats): StepServing | undefined {
  const cur = counters(now);
  if (!cur) return undefined;
  const prev = counters(previous);
  // The engine's counters restart when its batcher is remade (engine restart, new settings): count from zero then.
  const base = prev && prev.batch.steps <= cur.batch.steps && prev.prefix.lookups <= cur.prefix.lookups ? prev : null;
  const since = (pick: (c: Counters) => number): number => pick(cur) - (base ? pick(base) : 0);
  const prefilled = since((c) => c.prefix.prefilledTokens);
  const reused = since((c) => c.prefix.reusedTokens);
  const steps = since((c) => c.batch.steps);
  const decoded = since((c) => c.batch.decodeTokens);
  return {
    promptTokens: prefilled + reused,
    prefilledTokens: prefilled,
    reusedTokens: reused,
    hitRate: prefilled + reused > 0 ? reused / (prefilled + reused) : 0,
    cacheBytes: cur.prefix.bytes,
    evictions: since((c) => c.prefix.evictions),
    meanBatch: steps > 0 ? decoded / steps : 0,
    // every sequence's first token is sampled by its prefill, the rest by decode steps
    generatedTokens: decoded + since((c) => c.batch.sequences),
  };
}
