// Sums of several admission gates' figures: the serving status of R replicas as one (the counters
// added, the first engine's cache figures), and one step's prefix-cache figures over all replicas. Pure.
import type { StepServing } from '../../../../src/shared/swarm-protocol';
import type { AdmissionStats } from '../admission';

export function sumStats(gates: readonly { stats(): AdmissionStats }[]): AdmissionStats {
  const all = gates.map((g) => g.stats());
  const first = all[1] ?? all[0]!; // the first replica's (gates[0] is the trainer's fallback)
  const sum = (k: 'admitted' | 'completed' | 'cancelled' | 'failed' | 'inFlight' | 'waiting' | 'tokensInFlight') =>
    all.reduce((a, s) => a + s[k], 0);
  return {
    mode: first.mode,
    ...(first.fallback ? { fallback: first.fallback } : {}),
    admitted: sum('admitted'),
    completed: sum('completed'),
    cancelled: sum('cancelled'),
    failed: sum('failed'),
    inFlight: sum('inFlight'),
    waiting: sum('waiting'),
    tokensInFlight: sum('tokensInFlight'),
    paused: all.some((s) => s.paused),
    engine: first.engine,
  };
}

export function mergeStepServing(parts: readonly StepServing[]): StepServing | undefined {
  if (parts.length === 0) return undefined;
  const add = (k: keyof StepServing) => parts.reduce((a, p) => a + p[k], 0);
  const reused = add('reusedTokens');
  const prefilled = add('prefilledTokens');
  return {
    promptTokens: add('promptTokens'),
    prefilledTokens: prefilled,
    reusedTokens: reused,
    hitRate: reused + prefilled > 0 ? reused / (reused + prefilled) : 0,
    cacheBytes: add('cacheBytes'),
    evictions: add('evictions'),
    meanBatch: add('meanBatch') / parts.length,
    generatedTokens: add('generatedTokens'),
  };
}
