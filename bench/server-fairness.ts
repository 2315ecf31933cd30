// `bench server` fairness section: short calls' latency (p50/p99, one call at a time) idle and under
// `streams` concurrent SSE streams asking for `streamTokens` tokens each (every stream starts a new
// call as soon as its previous one ends), with the batcher's short-call lane off (`shortRows` 0:
// arrival order only, the engine before #19 §6) and on (the engine's default), side by side in one
// run on one worker. Under load it also samples the engine: sequences waiting for a decode row, and
// the mean forward time of a step, so the wait for a row (admission) can be told from slower steps
// (the hardware's share: a short call of n tokens takes at least n steps of the fuller batch).
import type { Worker } from '../gpu-worker/src/worker';
import { round } from './engine';
import { abort, chat, claim, percentile, PROMPTS, timedStream } from './server-load';

export interface FairnessOptions {
  streams: number;
  streamTokens: number;
  calls: number;
  shortTokens: number;
  /** The engine's decode rows during the section (0: the worker's --max-batch). */
  rows: number;
}

interface Phase {
  p50: number;
  p99: number;
  /** Mean sequences waiting for a row in the engine, sampled before each short call. */
  waiting: number;
  /** Mean forward seconds of an engine step over the phase (ms). */
  stepMs: number;
}

async function shortCalls(w: Worker, o: FairnessOptions, tag: string): Promise<Phase> {
  const c = await claim(w, `bench-fair-${tag}`);
  const before = await w.engine.call('cache_stats', {});
  const latencies: number[] = [];
  let waiting = 0;
  for (let i = 0; i < o.calls; i++) {
    waiting += (await w.engine.call('cache_stats', {})).batch?.waiting ?? 0;
    const t0 = performance.now();
    await chat(c, { messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }], max_tokens: o.shortTokens });
    latencies.push(performance.now() - t0);
  }
  const after = await w.engine.call('cache_stats', {});
  await abort(w, c.episodeId);
  const steps = (after.batch?.steps ?? 0) - (before.batch?.steps ?? 0);
  const forward = (after.batch?.forwardSeconds ?? 0) - (before.batch?.forwardSeconds ?? 0);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    waiting: waiting / Math.max(1, o.calls),
    stepMs: steps > 0 ? (forward / steps) * 1000 : 0,
  };
}

/** Short calls while `o.streams` looping streams keep the engine busy. */
async function underLoad(w: Worker, o: FairnessOptions, tag: string): Promise<Phase> {
  const claims = await Promise.all(Array.from({ length: o.streams }, (_, i) => claim(w, `bench-load-${i % 8}`)));
  let stop = false;
  let started = 0;
  let failed: unknown;
  const loops = claims.map(async (c, i) => {
    for (let k = 0; !stop; k++) {
      await timedStream(c, {
        messages: [{ role: 'user', content: PROMPTS[(i + k) % PROMPTS.length] }],
        max_tokens: o.streamTokens,
        seed: 1000 * i + k,
      });
      if (k === 0) started += 1;
    }
  });
  loops.forEach((l) => l.catch((err: unknown) => (failed ??= err)));
  try {
    // measure once every stream has had its first call answered (the batch is full and mixed)
    while (started < o.streams && failed === undefined) await new Promise((r) => setTimeout(r, 50));
    if (failed !== undefined) throw failed;
    return await shortCalls(w, o, tag);
  } finally {
    stop = true;
    await Promise.allSettled(loops);
    await Promise.all(claims.map((c) => abort(w, c.episodeId)));
  }
}

/** Idle and loaded short-call latency with the short-call lane off, then on; figures and ratios. */
export async function fairness(
  w: Worker,
  o: FairnessOptions,
  out: (line: string) => void,
): Promise<Record<string, number>> {
  const lane = w.engine.info?.serving?.shortRows ?? 8;
  const f: Record<string, number> = {};
  for (const [variant, shortRows] of [
    ['fifo', 0],
    ['lane', lane],
  ] as const) {
    await w.engine.call('configure', { shortRows, ...(o.rows > 0 ? { maxRows: o.rows } : {}) });
    out(`fairness [${variant}]: idle short calls, then under ${o.streams} streams`);
    const idle = await shortCalls(w, o, `${variant}-idle`);
    const load = await underLoad(w, o, variant);
    out(
      `fairness [${variant}${variant === 'lane' ? ` ${shortRows} rows` : ''}] short calls (${o.shortTokens} tokens): ` +
        `idle p50 ${idle.p50.toFixed(0)} / p99 ${idle.p99.toFixed(0)} ms · under ${o.streams} streams of ` +
        `${o.streamTokens} tokens p50 ${load.p50.toFixed(0)} / p99 ${load.p99.toFixed(0)} ms ` +
        `(${(load.p50 / idle.p50).toFixed(1)}× / ${(load.p99 / idle.p99).toFixed(1)}× idle) · ` +
        `${load.waiting.toFixed(1)} waiting for a row, step ${load.stepMs.toFixed(1)} ms (idle ${idle.stepMs.toFixed(1)})`,
    );
    Object.assign(f, {
      [`fair_${variant}_idle_p50_ms`]: round(idle.p50),
      [`fair_${variant}_idle_p99_ms`]: round(idle.p99),
      [`fair_${variant}_load_p50_ms`]: round(load.p50),
      [`fair_${variant}_load_p99_ms`]: round(load.p99),
      [`fair_${variant}_load_waiting`]: round(load.waiting, 2),
      [`fair_${variant}_load_step_ms`]: round(load.stepMs, 2),
    });
  }
  const rows = w.engine.info?.serving?.maxRows;
  await w.engine.call('configure', { shortRows: lane, ...(rows ? { maxRows: rows } : {}) });
  f['fair_lane_vs_fifo_load_p50'] = round(f['fair_lane_load_p50_ms']! / Math.max(1e-9, f['fair_fifo_load_p50_ms']!), 3);
  f['fair_lane_vs_fifo_load_p99'] = round(f['fair_lane_load_p99_ms']! / Math.max(1e-9, f['fair_fifo_load_p99_ms']!), 3);
  out(
    `fairness: the lane's loaded short-call latency is ${f['fair_lane_vs_fifo_load_p50']}× (p50) / ` +
      `${f['fair_lane_vs_fifo_load_p99']}× (p99) of arrival order's`,
  );
  return f;
}
