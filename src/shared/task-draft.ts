// Vibe training's contracts: the machine-readable verdict of `agentjet task check` (every failure
// with its file:line, or the failing episode's transcript), and the "New task from description"
// request and result (each round's verdict and the diff the LLM made).
import { z } from 'zod';
import { ChatMessageSchema } from './chat';

export const CHECKS = ['files', 'typecheck', 'compile', 'dataset', 'reward', 'smoke'] as const;
export type CheckName = (typeof CHECKS)[number];

export const TaskFailureSchema = z.object({
  check: z.enum(CHECKS),
  /** Relative to the task folder, when the failure has a place. */
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  message: z.string(),
  /** A failing smoke episode: its id and the conversation the worker recorded. */
  episodeId: z.string().nullable(),
  transcript: z.array(ChatMessageSchema).nullable(),
});
export type TaskFailure = z.infer<typeof TaskFailureSchema>;

export const TaskVerdictSchema = z.object({
  ok: z.boolean(),
  dir: z.string(),
  checks: z.array(
    z.object({ name: z.enum(CHECKS), ok: z.boolean(), skipped: z.boolean(), ms: z.number(), detail: z.string() }),
  ),
  failures: z.array(TaskFailureSchema),
});
export type TaskVerdict = z.infer<typeof TaskVerdictSchema>;

export const LlmSettingsSchema = z.object({
  /** An OpenAI-compatible endpoint (base URL, e.g. http://localhost:11434/v1). */
  endpoint: z.string().url(),
  apiKey: z.string().max(500).default(''),
  model: z.string().min(1).max(200),
});
export type LlmSettings = z.output<typeof LlmSettingsSchema>;

export const TaskDraftRequestSchema = z
  .object({
    /** The new task folder (absolute; created, or refused when it holds files). */
    dir: z.string().min(1).max(2000),
    description: z.string().min(10).max(8000),
    llm: LlmSettingsSchema,
    /** Generate → check → feed the failures back, at most this many rounds. */
    rounds: z.number().int().min(1).max(10).default(3),
    /** Smoke episodes per check (0: no worker is started; compile, dataset and reward only). */
    smokeEpisodes: z.number().int().min(0).max(20).default(3),
  })
  .strict();
export type TaskDraftRequest = z.input<typeof TaskDraftRequestSchema>;

export const TaskRoundSchema = z.object({
  round: z.number().int(),
  verdict: TaskVerdictSchema,
  /** Unified diff of the task's files against the previous round (the first round: against nothing). */
  diff: z.string(),
  tokens: z.number().int(),
});
export type TaskRound = z.infer<typeof TaskRoundSchema>;

export const TaskDraftResultSchema = z.object({
  ok: z.boolean(),
  dir: z.string(),
  rounds: z.array(TaskRoundSchema),
  files: z.array(z.string()),
  /** Why it stopped without a passing task (rounds used up, the LLM failed …). */
  note: z.string().nullable(),
});
export type TaskDraftResult = z.infer<typeof TaskDraftResultSchema>;
