// How long the worker waits for each engine call before failing it (issue #19 §1): no call may wait
// forever on an engine that lost it. Light calls get a minute; a generation two minutes plus a
// quarter second per token it may produce (the slowest decode step of a busy batch on a CPU is far
// quicker); the calls that load, train or write the model get hours. `scale` multiplies them all
// (the worker's --engine-timeout-scale, for slow hardware). Pure.
import type { EngineMethod, EngineParams } from '../../../src/shared/engine-protocol';

export interface EngineDeadlines {
  /** info, render, decode, cancel, configure, cache_stats. */
  lightMs: number;
  /** logprobs: a forward pass over whole sequences. */
  logprobsMs: number;
  /** A generation: this much plus `generatePerTokenMs` per token of its largest max_tokens. */
  generateMs: number;
  generatePerTokenMs: number;
  /** train_step, save, restore. */
  exclusiveMs: number;
  /** load (a large model from a slow disk). */
  loadMs: number;
  /** Multiplies every deadline above. */
  scale: number;
}

export const DEFAULT_ENGINE_DEADLINES: EngineDeadlines = {
  lightMs: 60_000,
  logprobsMs: 600_000,
  generateMs: 120_000,
  generatePerTokenMs: 250,
  exclusiveMs: 3_600_000,
  loadMs: 7_200_000,
  scale: 1,
};

/** The deadline of one call, in milliseconds. */
export function engineCallDeadlineMs<M extends EngineMethod>(
  method: M,
  params: EngineParams[M],
  deadlines: Partial<EngineDeadlines> = {},
): number {
  const d = { ...DEFAULT_ENGINE_DEADLINES, ...deadlines };
  return Math.ceil(d.scale * baseMs(method, params, d));
}

function baseMs<M extends EngineMethod>(method: M, params: EngineParams[M], d: EngineDeadlines): number {
  switch (method) {
    case 'generate': {
      const requests = (params as EngineParams['generate']).requests;
      const tokens = Math.max(0, ...requests.map((r) => r.maxTokens));
      return d.generateMs + tokens * d.generatePerTokenMs;
    }
    case 'logprobs':
      return d.logprobsMs;
    case 'train_step':
    case 'save':
    case 'restore':
      return d.exclusiveMs;
    case 'load':
      return d.loadMs;
    default:
      return d.lightMs;
  }
}
