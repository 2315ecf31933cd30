// The run-health figures of rollout placement and asynchronous updates (issue #21): the replicas in
// `/swarm/v1/status` (`serving.rollout`) and each step's `health` in the step metrics — staleness,
// behaviour-vs-trainer mismatch, the correction's share, busy fractions and weight-sync time.
import { z } from 'zod';

const Int = z.number().int();

export const ReplicaStatusSchema = z.object({
  index: Int,
  /** starting | ready | restarting | failed | disposed (the replica's engine process) */
  state: z.string(),
  /** Routable: ready and holding synced weights. */
  healthy: z.boolean(),
  weightVersion: Int,
  restarts: Int,
  inFlight: Int,
  waiting: Int,
  /** Generated tokens per second and prefix-cache token hit rate since the previous status or step. */
  tokensPerS: z.number(),
  cacheHitRate: z.number(),
  pid: Int.nullable(),
  /** The replica's name (`<host>/<i>`) when it runs on another host (`agentjet replica`); null: on the worker's. */
  host: z.string().nullable().optional(),
  /** Generation calls it has answered since it was added. */
  calls: Int.optional(),
});
export type ReplicaStatus = z.infer<typeof ReplicaStatusSchema>;

export const RolloutStatusSchema = z.object({
  replicas: z.array(ReplicaStatusSchema),
  async: z.boolean(),
  inflight: z.enum(['swap', 'finish']),
  /** Weight syncs done, failed, and the last one's time. */
  syncs: Int,
  syncFailures: Int,
  lastSyncMs: z.number().nullable(),
  /** Calls waiting for a replica within the staleness bound, and how many such waits timed out. */
  heldByStaleness: Int,
  stalenessTimeouts: Int,
});
export type RolloutStatus = z.infer<typeof RolloutStatusSchema>;

export const StepHealthSchema = z.object({
  /** Trained tokens' staleness (trainer version − the version that sampled each token). */
  stalenessMean: z.number(),
  stalenessMax: Int,
  /** Tokens per staleness 0, 1, 2, … (the last bucket counts everything at or above it). */
  stalenessHistogram: z.array(Int),
  /**
   * The bound the update held its episodes to (--max-staleness, and with --async also --staleness-bound K),
   * the episodes it dropped for exceeding it and their generated tokens (absent from older workers).
   */
  stalenessBound: Int.optional(),
  droppedOverBound: Int.optional(),
  overBoundTokens: Int.optional(),
  /** Mean k3 KL between the behaviour policy and the trainer's, and the share of tokens the correction touched. */
  mismatchKl: z.number().nullable(),
  correctedFraction: z.number().nullable(),
  correction: z.string(),
  /** Since the previous step: share of wall time generation ran, sat waiting for an update, the trainer updated. */
  genBusyFraction: z.number(),
  genIdleWaitFraction: z.number(),
  trainerBusyFraction: z.number(),
  /** The last weight sync (push + pull, all replicas); null without replicas. */
  syncMs: z.number().nullable(),
  replicas: z.array(z.object({ index: Int, busyFraction: z.number(), tokensPerS: z.number() })),
});
export type StepHealth = z.infer<typeof StepHealthSchema>;

/** What a generation gate reports per step towards StepHealth (the rest comes from the trained episodes). */
export type GateHealth = Pick<
  StepHealth,
  'genBusyFraction' | 'genIdleWaitFraction' | 'trainerBusyFraction' | 'syncMs' | 'replicas'
>;

export const HISTOGRAM_BUCKETS = 8;

/** Token-level staleness of trained calls: each call's output tokens at their sampling versions. */
export function stalenessFigures(
  calls: readonly { weightVersion: number; outputIds: readonly unknown[]; versionSpans?: [number, number][] }[],
  trainerVersion: number,
): Pick<StepHealth, 'stalenessMean' | 'stalenessMax' | 'stalenessHistogram'> {
  const hist = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  let tokens = 0;
  let sum = 0;
  let max = 0;
  for (const c of calls) {
    const cuts: [number, number][] = [[0, c.weightVersion], ...(c.versionSpans ?? [])];
    cuts.forEach(([start, version], i) => {
      const end = i + 1 < cuts.length ? cuts[i + 1]![0] : c.outputIds.length;
      const n = Math.max(0, Math.min(end, c.outputIds.length) - start);
      if (n === 0) return;
      const s = Math.max(0, trainerVersion - version);
      hist[Math.min(s, HISTOGRAM_BUCKETS - 1)]! += n;
      tokens += n;
      sum += s * n;
      max = Math.max(max, s);
    });
  }
  return { stalenessMean: tokens > 0 ? sum / tokens : 0, stalenessMax: max, stalenessHistogram: hist };
}
