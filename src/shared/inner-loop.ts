// The workbench's records of the researcher's inner loop (docs/inner-loop.md): quarantined
// episodes, saved fork probes and their results over weight versions, and regression-board
// figures per commit. Stored in SQLite (src/node/store/inner-loop.ts), shown by the renderer.
import { z } from 'zod';

export const QuarantineMarkSchema = z.object({
  episodeId: z.string(),
  codeVersion: z.string(),
  quarantinedAt: z.number(),
  /** When a release put it back into the pool; null while held. */
  releasedAt: z.number().nullable(),
});
export type QuarantineMark = z.infer<typeof QuarantineMarkSchema>;

/** A fork's settings besides its call and K: the sampling and an edit of the call's last turn. */
export const forkSettings = {
  callIndex: z.number().int().min(0),
  temperature: z.number().min(0).max(5).default(1),
  maxTokens: z.number().int().min(1).max(4096).optional(),
  edit: z
    .object({ content: z.string().max(100_000) })
    .strict()
    .optional(),
};

/** How many continuations a fork samples (at most 32). */
export const forkK = (byDefault: number) => z.number().int().min(1).max(32).default(byDefault);

/** A saved fork: a recorded call, the fork's settings, and what counts as a hit in a continuation. */
export const ProbeSpecSchema = z
  .object({
    episodeId: z.string().min(1).max(300),
    ...forkSettings,
    k: forkK(8),
    /** A continuation is a hit when its text contains this
     * (e.g. `<tool_call>`: "does it still call the tool here?"). */
    contains: z.string().min(1).max(1000),
  })
  .strict();
export type ProbeSpec = z.infer<typeof ProbeSpecSchema>;

export const ProbeSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  spec: ProbeSpecSchema,
  createdAt: z.number(),
});
export type Probe = z.infer<typeof ProbeSchema>;

export const ProbePointSchema = z.object({
  weightVersion: z.number().int(),
  at: z.number(),
  k: z.number().int(),
  hits: z.number().int(),
  /** Mean per-token logprob over the continuations (null when they are empty). */
  meanLogprob: z.number().nullable(),
});
export type ProbePoint = z.infer<typeof ProbePointSchema>;

/** One figure of one benchmark run at one commit with one seed. */
export const RegressResultSchema = z.object({
  commit: z.string().regex(/^[0-9a-f]{7,40}$/),
  commitDate: z.number(),
  subject: z.string(),
  bench: z.string().min(1).max(100),
  figure: z.string().min(1).max(200),
  seed: z.number().int(),
  value: z.number(),
  curve: z.array(z.number()).nullable(),
  machine: z.string(),
  ranAt: z.number(),
});
export type RegressResult = z.infer<typeof RegressResultSchema>;

const DistributionSchema = z.object({
  count: z.number().int(),
  mean: z.number().nullable(),
  std: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  /** Ten equal bins over the range of old and new rewards together. */
  histogram: z.array(z.object({ lo: z.number(), hi: z.number(), count: z.number().int() })),
});
export type Distribution = z.infer<typeof DistributionSchema>;

export const ChangedEpisodeSchema = z.object({
  episodeId: z.string(),
  taskId: z.string().nullable(),
  oldReward: z.number().nullable(),
  newReward: z.number(),
  delta: z.number().nullable(),
  oldSuccess: z.boolean().nullable(),
  newSuccess: z.boolean().nullable(),
});
export type ChangedEpisode = z.infer<typeof ChangedEpisodeSchema>;

/** `reward try`'s verdict (src/node/reward-try/verdict.ts). */
export const RewardVerdictSchema = z.object({
  ok: z.boolean(),
  episodes: z.number().int(),
  scored: z.number().int(),
  old: DistributionSchema,
  new: DistributionSchema,
  /** Largest |change| first. */
  changed: z.array(ChangedEpisodeSchema),
  errors: z.array(z.object({ episodeId: z.string(), error: z.string() })),
  /** Task groups of ≥ 2 episodes (of the last update when it is among those tried) gaining or losing reward
   * variance. */
  groups: z.object({
    considered: z.number().int(),
    gainSignal: z.array(z.string()),
    loseSignal: z.array(z.string()),
    scope: z.enum(['last_update', 'tried']),
  }),
});
export type RewardVerdict = z.infer<typeof RewardVerdictSchema>;

export const RewardTryResultSchema = RewardVerdictSchema.extend({
  runId: z.string(),
  file: z.string(),
  /** Episodes whose task id has no row in the task files (their reward sees only `{id}`). */
  missingTasks: z.number().int(),
});
export type RewardTryResult = z.infer<typeof RewardTryResultSchema>;

/** What reward code returned for one conversation (src/node/reward-try/runner.ts), or why it failed. */
export const RewardOutcomeSchema = z.union([
  z.object({ ok: z.literal(true), reward: z.number(), success: z.boolean().optional() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

/**
 * The reward each fork continuation would get if the episode ended there: the run's reward code on
 * the call's messages (with the edit) plus the continuation, in a child process (reward-try).
 */
export const ForkRewardsSchema = z.object({
  /** The reward file run (absolute), or null when the run has none. */
  file: z.string().nullable(),
  /** The recorded turn under the same code, for comparison; null when nothing could run. */
  recorded: RewardOutcomeSchema.nullable(),
  /** One per continuation, in order; empty when nothing could run (see `note`). */
  continuations: z.array(RewardOutcomeSchema),
  /** Why there are no rewards, or that the task row was missing (the reward saw only `{id}`). */
  note: z.string().nullable(),
});
export type ForkRewards = z.infer<typeof ForkRewardsSchema>;

/**
 * The run's reward file among its code files: an editable `reward.{ts,js,mjs,py}` (the task-folder and
 * examples' convention), the shallowest first; null when there is none.
 */
export function rewardFileOf(files: readonly { path: string; editable: boolean }[]): string | null {
  const candidates = files
    .filter((f) => f.editable && /(^|\/)reward\.(ts|js|mjs|py)$/.test(f.path))
    .map((f) => f.path)
    .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  return candidates[0] ?? null;
}
