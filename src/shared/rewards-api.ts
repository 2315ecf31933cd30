// The learned-rewards part of the renderer ⇄ main contract (spread into workbench-api.ts's method
// table): labels on episodes (good/bad, or one episode preferred over another of its task group), the
// label queue, labels JSONL import/export, reward models (train, list, deploy) and the reward model's
// score against the verifiable reward.
import { z } from 'zod';
import { ChatMessageSchema, ToolSchema } from './chat';

const Id = z.string().min(1).max(300);
const Count = z.number().int().nonnegative();
const RunRef = z.object({ runId: Id }).strict();

export const LabelKindSchema = z.enum(['good', 'bad', 'prefer']);
export type LabelKind = z.infer<typeof LabelKindSchema>;

export const LabelSchema = z.object({
  id: z.number().int(),
  kind: LabelKindSchema,
  /** The labelled episode; for `prefer`, the preferred one. */
  episodeId: z.string(),
  /** For `prefer`: the episode it is preferred over (same task group); null otherwise. */
  otherEpisodeId: z.string().nullable(),
  taskId: z.string().nullable(),
  /** The client code version that played the episode (and the other one). */
  codeVersion: z.string().nullable(),
  otherCodeVersion: z.string().nullable(),
  author: z.string(),
  /** Where it came from: the inspector, a JSONL import, … */
  source: z.string(),
  createdAt: z.number(),
});
export type Label = z.infer<typeof LabelSchema>;

export const NewLabelSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.enum(['good', 'bad']), episodeId: Id }),
  z.object({ kind: z.literal('prefer'), episodeId: Id, otherEpisodeId: Id }),
]);
export type NewLabel = z.infer<typeof NewLabelSchema>;

export const LabelSummarySchema = z.object({
  good: Count,
  bad: Count,
  pairs: Count,
  labelledEpisodes: Count,
  authors: z.array(z.string()),
});
export type LabelSummary = z.infer<typeof LabelSummarySchema>;

/** One proposal of the label queue, with how unsure the current reward model is (1: a coin flip). */
export const QueueItemSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('point'),
    episodeId: z.string(),
    taskId: z.string().nullable(),
    score: z.number().nullable(),
    uncertainty: z.number().min(0).max(1),
  }),
  z.object({
    kind: z.literal('pair'),
    episodeId: z.string(),
    otherEpisodeId: z.string(),
    taskId: z.string().nullable(),
    scores: z.tuple([z.number(), z.number()]).nullable(),
    uncertainty: z.number().min(0).max(1),
  }),
]);
export type QueueItem = z.infer<typeof QueueItemSchema>;

export const RewardModelRowSchema = z.object({
  version: z.number().int().positive(),
  folder: z.string(),
  sha256: z.string(),
  createdAt: z.number(),
  /** When it was last deployed into the run's reward code (null: never). */
  deployedAt: z.number().nullable(),
  loss: z.string(),
  heldoutAccuracy: z.number().nullable(),
  heldoutLabels: Count,
  onnxMaxAbsDiff: z.number(),
  pointLabels: Count,
  pairLabels: Count,
  trainSeconds: z.number(),
  base: z.string(),
});
export type RewardModelRow = z.infer<typeof RewardModelRowSchema>;

export const RmTrainingStatusSchema = z.object({
  version: z.number().int().positive(),
  state: z.enum(['training', 'done', 'failed']),
  /** 0..1 while training. */
  fraction: z.number().min(0).max(1).nullable(),
  detail: z.string(),
  startedAt: z.number(),
});
export type RmTrainingStatus = z.infer<typeof RmTrainingStatusSchema>;

export const RewardPointSchema = z.object({
  episodeId: z.string(),
  createdAt: z.number(),
  rmScore: z.number(),
  verifiable: z.number(),
  codeVersion: z.string().nullable(),
});
export type RewardPoint = z.infer<typeof RewardPointSchema>;

export const ConversationSchema = z.object({
  messages: z.array(ChatMessageSchema),
  tools: z.array(ToolSchema).nullable(),
});

export const rewardsMethods = {
  /** A run's newest labels (of one episode, as either side of a pair, when given), its counts, and who labels here. */
  labels: {
    params: z
      .object({ runId: Id, episodeId: Id.optional(), limit: z.number().int().positive().max(10_000).default(200) })
      .strict(),
    result: z.object({ labels: z.array(LabelSchema), summary: LabelSummarySchema, author: z.string() }),
  },
  /**
   * Labels an episode good/bad, or prefers it over another of its task group; replaces the author's earlier label of
   * the same episode (pair).
   */
  putLabel: {
    params: z.object({ runId: Id, label: NewLabelSchema }).strict(),
    result: z.object({ label: LabelSchema }),
  },
  deleteLabel: {
    params: z.object({ runId: Id, labelId: z.number().int() }).strict(),
    result: z.object({ ok: z.literal(true) }),
  },
  /**
   * Episodes (or pairs of a task group) worth labelling next: where the newest reward model is least sure; unlabelled
   * ones first. `top`: the unlabelled episodes it scores highest (an audit for reward hacking).
   */
  labelQueue: {
    params: z
      .object({
        runId: Id,
        limit: z.number().int().positive().max(100).default(10),
        mode: z.enum(['auto', 'points', 'pairs', 'top']).default('auto'),
      })
      .strict(),
    result: z.object({ rewardModel: z.number().int().nullable(), candidates: Count, items: z.array(QueueItemSchema) }),
  },
  /**
   * Imports labels from JSONL text (docs/learned-rewards.md: one label per line); all or nothing. Larger files:
   * `agentjet labels import`.
   */
  importLabels: {
    params: z.object({ runId: Id, jsonl: z.string().max(3_500_000) }).strict(),
    result: z.object({ imported: Count, replaced: Count }),
  },
  /** The run's labels as JSONL (optionally with each episode's conversation). */
  exportLabels: {
    params: z.object({ runId: Id, conversations: z.boolean().default(false) }).strict(),
    result: z.object({ jsonl: z.string(), labels: Count }),
  },
  /** An episode's conversation as a reward model reads it (the last call's messages and output). */
  episodeConversation: { params: z.object({ runId: Id, episodeId: Id }).strict(), result: ConversationSchema },
  rewardModels: {
    params: RunRef,
    result: z.object({ models: z.array(RewardModelRowSchema), training: RmTrainingStatusSchema.nullable() }),
  },
  /** Trains a reward model on the run's labels in an engine process of its own; resolves when it has started. */
  trainRewardModel: {
    params: z
      .object({
        runId: Id,
        loss: z.enum(['pairwise', 'pointwise', 'both']).default('pairwise'),
        epochs: z.number().positive().max(100).default(1),
        lr: z.number().positive().max(1).default(1e-4),
        heldout: z.number().min(0).max(0.9).default(0.2),
        maxMinutes: z.number().positive().max(600).default(20),
        /** Tokens per conversation (the last ones are kept); default the engine's 1024. */
        maxLength: z.number().int().min(16).max(32_768).optional(),
        /** The engine's seed (held-out split, head init, order): ensemble members differ by it; default 0. */
        seed: z.number().int().min(0).max(1_000_000).optional(),
      })
      .strict(),
    result: z.object({ version: z.number().int().positive() }),
  },
  /** Points the live run's reward code at a reward model and hot-swaps the clients (a new code version). */
  deployRewardModel: {
    params: z.object({ runId: Id, version: z.number().int().positive() }).strict(),
    result: z.object({ codeVersion: z.string(), path: z.string() }),
  },
  /** Episodes that reported both the reward model's score and the verifiable reward, oldest first. */
  rewardComparison: {
    params: z.object({ runId: Id, limit: z.number().int().positive().max(20_000).default(5000) }).strict(),
    result: z.object({ points: z.array(RewardPointSchema) }),
  },
} as const;

export const RewardModelEventSchema = z.object({
  type: z.literal('reward_model'),
  runId: Id,
  status: RmTrainingStatusSchema,
  model: RewardModelRowSchema.nullable(),
});

/** The reward-hacking alarm of a run turned on (or off): pushed by the backend after a step (hacking-watch.ts). */
export const RewardHackingEventSchema = z.object({
  type: z.literal('reward_hacking'),
  runId: Id,
  verdict: z.object({
    alarm: z.boolean(),
    scoreRise: z.number().nullable(),
    successDrop: z.number().nullable(),
    successDropSe: z.number().nullable(),
    window: z.number().int(),
  }),
  /** Episodes judged (those that reported both metrics). */
  episodes: Count,
  message: z.string(),
  at: z.number(),
});
export type RewardHackingEvent = z.infer<typeof RewardHackingEventSchema>;
