// Events of the swarm server's live stream (`GET /swarm/v1/events`, DESIGN §4.1): one typed,
// sequence-numbered message per change, so a viewer that reconnects with `?since=<seq>` resumes
// where it left off. The server's first message is always `hello`.
import { z } from 'zod';
import {
  BatchProgressSchema,
  EpisodeKindSchema,
  EvalResultSchema,
  StepMetricsSchema,
  WorkerStateSchema,
} from './swarm-protocol';

/**
 * Set to `1` in a worker's environment by a supervisor that stores its events stream: the lines that go
 * out as `log` events are then not also written to stderr, so the supervisor keeps each line once.
 */
export const LOG_EVENTS_ONLY_ENV = 'AGENTJET_LOG_EVENTS_ONLY';

const Int = z.number().int();

/** What timeline merging did to a step's episodes (tokens before/after, samples out, chain breaks by cause). */
export const StepMergeSchema = z.object({
  episodes: Int,
  callsIn: Int,
  samplesOut: Int,
  tokensBefore: Int,
  tokensAfter: Int,
  tokensTrained: Int,
  compressionRatio: z.number(),
  breakCounts: z.record(z.string(), Int),
});
export type StepMerge = z.infer<typeof StepMergeSchema>;

/** Prefix-cache figures of a step's rollouts (filled in by a serving layer that keeps a KV cache). */
export const StepCacheSchema = z.record(z.string(), z.number());

/** The payloads; `seq` and `time` are added by the event log. */
export const SwarmEventBodySchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('state'),
    state: WorkerStateSchema,
    step: Int,
    weightVersion: Int,
    reason: z.string().optional(),
  }),
  z.object({ type: z.literal('client_joined'), clientId: z.string(), name: z.string().optional() }),
  z.object({ type: z.literal('client_left'), clientId: z.string(), reason: z.enum(['left', 'timeout']) }),
  z.object({
    type: z.literal('episode_started'),
    episodeId: z.string(),
    clientId: z.string(),
    kind: EpisodeKindSchema,
    taskId: z.string().optional(),
    codeVersion: z.string().optional(),
    /** The role the episode plays (the claim's `role`). */
    role: z.string().optional(),
    weightVersion: Int,
  }),
  z.object({
    type: z.literal('episode_ended'),
    episodeId: z.string(),
    clientId: z.string(),
    kind: EpisodeKindSchema,
    taskId: z.string(),
    reward: z.number(),
    success: z.boolean().optional(),
    calls: Int,
    pooled: z.boolean(),
    codeVersion: z.string().optional(),
  }),
  z.object({
    type: z.literal('episode_aborted'),
    episodeId: z.string(),
    clientId: z.string(),
    reason: z.string(),
    calls: Int,
  }),
  z.object({
    type: z.literal('episode_expired'),
    episodeId: z.string(),
    clientId: z.string(),
    idleS: z.number(),
    calls: Int,
  }),
  z.object({ type: z.literal('batch_progress'), progress: BatchProgressSchema, poolEpisodes: Int }),
  z.object({
    type: z.literal('episodes_dropped'),
    episodeIds: z.array(z.string()),
    reason: z.enum(['zero_variance', 'stale', 'train_error']),
  }),
  /** One policy update, with what merging did; `merge` is absent only from workers older than this field. */
  z.object({
    type: z.literal('step'),
    metrics: StepMetricsSchema,
    merge: StepMergeSchema.optional(),
    cache: StepCacheSchema.optional(),
    /**
     * The episodes the update consumed (trained, or without signal); their trained samples: GET
     * /swarm/v1/episodes/:id/merged.
     */
    episodeIds: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal('eval_result'), result: EvalResultSchema }),
  z.object({ type: z.literal('checkpoint'), step: Int, path: z.string(), reason: z.string(), seconds: z.number() }),
  z.object({
    type: z.literal('log'),
    level: z.enum(['debug', 'info', 'warn', 'error']),
    source: z.string(),
    message: z.string(),
  }),
]);
export type SwarmEventBody = z.infer<typeof SwarmEventBodySchema>;
export type SwarmEventType = SwarmEventBody['type'];

export const SwarmEventSchema = z.intersection(z.object({ seq: Int, time: z.number() }), SwarmEventBodySchema);
export type SwarmEvent = SwarmEventBody & { seq: number; time: number };

/** The first message on every connection. */
export const HelloMessageSchema = z.object({
  type: z.literal('hello'),
  /** Changes on every server start: sequence numbers are only comparable within one boot. */
  bootId: z.string(),
  /** The newest sequence number so far. */
  lastSeq: Int,
  /** The oldest sequence number still held; `since` older than `oldestSeq - 1` cannot be replayed in full. */
  oldestSeq: Int,
  /** True when the events after `since` could not all be replayed (or `since` is from another boot). */
  gap: z.boolean(),
});
export type HelloMessage = z.infer<typeof HelloMessageSchema>;
