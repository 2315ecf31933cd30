// Learned rewards (DESIGN §10), the pure parts both ends share: a reward-model folder's manifest
// (`reward_model.json`, written by the engine's `python -m agentjet_engine.reward_model train`), the
// reference reward code holds to the model it scores with, the metric names episodes report at `end`,
// the conversation of an episode as the reward model sees it, and the labels dataset's lines.
import { z } from 'zod';
import { ChatMessageSchema, ToolSchema, type ChatMessage, type Tool } from './chat';

export const REWARD_MODEL_FORMAT = 'agentjet-reward-model/1';
export const REWARD_MODEL_MANIFEST = 'reward_model.json';

/** Episode metrics (`end` → `metrics`) that the workbench charts against each other. */
export const RM_SCORE_METRIC = 'rm_score';
export const VERIFIABLE_REWARD_METRIC = 'verifiable_reward';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 hex digest');
/**
 * A file of a reward-model folder, named as the engine names them: a plain file name (no folder part,
 * not `.` or `..`, no NUL), so a manifest cannot point outside its folder. (The SDK also refuses a
 * symbolic link that leads out of it.)
 */
export const ModelFileNameSchema = z
  .string()
  .refine(
    (s) => /^(?!\.\.?$)[^/\\]{1,255}$/.test(s) && !s.includes('\u0000'),
    'a file name inside the folder (no "/", "\\", ".." or absolute path)',
  );
const Accuracy = z.object({
  pairAccuracy: z.number().nullable(),
  pointAccuracy: z.number().nullable(),
  pairs: z.number().int(),
  points: z.number().int(),
});

export const RewardModelManifestSchema = z.object({
  format: z.literal(REWARD_MODEL_FORMAT),
  version: z.number().int().positive(),
  createdAt: z.number(),
  base: z.string(),
  loss: z.enum(['pairwise', 'pointwise', 'both']),
  maxLength: z.number().int().positive(),
  architecture: z.string(),
  padTokenId: z.number().int().nonnegative(),
  truncation: z.literal('left'),
  onnx: z.object({
    file: ModelFileNameSchema,
    inputs: z.tuple([z.literal('input_ids'), z.literal('attention_mask')]),
    output: z.string(),
    maxAbsDiff: z.number(),
    exportSeconds: z.number(),
    exporter: z.string().optional(),
  }),
  tokenizer: z.object({
    tokenizer: ModelFileNameSchema,
    config: ModelFileNameSchema,
    chatTemplate: ModelFileNameSchema,
  }),
  training: z
    .object({
      conversations: z.number().int(),
      pointLabels: z.number().int(),
      pairLabels: z.number().int(),
      steps: z.number().int(),
      seconds: z.number(),
    })
    .loose(),
  metrics: z.object({ heldoutAccuracy: z.number().nullable(), heldout: Accuracy, train: Accuracy }),
  scoreStats: z.object({ mean: z.number(), std: z.number() }),
  /** Every file of the folder (but the manifest) with its SHA-256. */
  files: z.record(ModelFileNameSchema, Sha256),
});
export type RewardModelManifest = z.infer<typeof RewardModelManifestSchema>;

/**
 * What reward code points at: a reward-model folder and the SHA-256 of its manifest (which lists every
 * file's hash). Kept in a small module the client imports (`reward-model-ref.ts`), so the client's code
 * version covers the model it scores with, and deploying a model is an ordinary code change.
 */
export const RewardModelRefSchema = z.object({
  folder: z.string().min(1),
  sha256: Sha256,
  version: z.number().int().positive().optional(),
});
export type RewardModelRef = z.infer<typeof RewardModelRefSchema>;

/**
 * An ensemble of reward models (members trained on the same labels with different seeds), scored as
 * mean − stdPenalty·std of the members' standardized scores (see ensembleScore).
 */
export const RewardEnsembleRefSchema = z.object({
  members: z.array(RewardModelRefSchema).min(2).max(16),
  stdPenalty: z.number().min(0).max(100),
});
export type RewardEnsembleRef = z.infer<typeof RewardEnsembleRefSchema>;

/**
 * The pointer's value: `{ rewardModel: null }` until a model is deployed. With `ensemble`, `rewardModel` is
 * its first member (what a client that scores with one model uses).
 */
export const RewardModelPointerSchema = z.object({
  rewardModel: RewardModelRefSchema.nullable(),
  ensemble: RewardEnsembleRefSchema.optional(),
});
export type RewardModelPointer = z.infer<typeof RewardModelPointerSchema>;

export interface EnsembleScore {
  /** mean − k·std of the members' standardized scores: what reward code uses. */
  score: number;
  mean: number;
  std: number;
  /** Each member's standardized score ((raw − its training mean) / its training std). */
  members: number[];
}

/**
 * The uncertainty-penalized score of an ensemble: each member's raw score standardized by its own training
 * statistics (so members on different scales are comparable), then mean − k·std (population std) over them.
 */
export function ensembleScore(
  raw: readonly number[],
  stats: readonly { mean: number; std: number }[],
  k: number,
): EnsembleScore {
  if (raw.length === 0 || raw.length !== stats.length)
    throw new Error(`ensembleScore: ${raw.length} scores for ${stats.length} members`);
  const z = raw.map((r, i) => (r - stats[i]!.mean) / (stats[i]!.std > 0 ? stats[i]!.std : 1));
  const mean = z.reduce((a, b) => a + b, 0) / z.length;
  const std = Math.sqrt(z.reduce((a, b) => a + (b - mean) ** 2, 0) / z.length);
  return { score: mean - k * std, mean, std, members: z };
}

/** The module name of the pointer, beside the client (what "Deploy" rewrites). */
export const REWARD_MODEL_POINTER_FILE = 'reward-model-ref.ts';

/** The pointer module's source for a deployed model or ensemble (or none); `unknown`, so the SDK parses it. */
export function rewardModelPointerSource(ref: RewardModelRef | RewardEnsembleRef | null): string {
  const value = ref && 'members' in ref ? { rewardModel: ref.members[0]!, ensemble: ref } : { rewardModel: ref };
  return [
    "// The reward model this client scores with: a reward-model folder and its manifest's SHA-256, or null.",
    '// "Deploy" in the workbench\'s Rewards panel rewrites this file and hot-swaps the clients, so the',
    "// client's code version names the model it used. It may be edited by hand (RewardModel.fromPointer checks it).",
    `export const rewardModelPointer: unknown = ${JSON.stringify(value, null, 2)};`,
    '',
  ].join('\n');
}

export interface Conversation {
  messages: ChatMessage[];
  tools?: Tool[] | null;
}

/**
 * An episode's conversation as a reward model sees it: the messages through the last assistant turn
 * (a tool result the agent never answered is left out), so reward code and the labels dataset — the
 * last recorded call's messages plus its output — give the same text. Empty without an assistant turn.
 */
export function episodeConversation(messages: readonly ChatMessage[]): ChatMessage[] {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === 'assistant') last = i;
  });
  return messages.slice(0, last + 1);
}

/** The labels dataset the engine trains on (one JSON object per line; see reward_data.py). */
export const DatasetLineSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('conversation'),
    id: z.string().min(1),
    group: z.string(),
    messages: z.array(ChatMessageSchema).min(1),
    tools: z.array(ToolSchema).nullable(),
  }),
  z.object({ kind: z.literal('point'), id: z.string().min(1), label: z.union([z.literal(0), z.literal(1)]) }),
  z.object({ kind: z.literal('pair'), chosen: z.string().min(1), rejected: z.string().min(1) }),
]);
export type DatasetLine = z.infer<typeof DatasetLineSchema>;

/** σ(score): the probability of "good" for a pointwise-trained model. */
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

type ScoreScale = Pick<RewardModelManifest, 'loss' | 'scoreStats'>;

/**
 * The score where the model is undecided between good and bad. The pointwise (logistic) loss, alone or with pairs,
 * fixes the score's zero; a pairwise-only model's scores have no zero, so its training mean stands in.
 */
export const scoreCenter = (m: ScoreScale): number => (m.loss === 'pairwise' ? m.scoreStats.mean : 0);

/** The model's probability that an episode is good: σ(score − its center). */
export function goodProbability(score: number, m: ScoreScale): number {
  return sigmoid(score - scoreCenter(m));
}
