// The worker's admin routes of the researcher's inner loop (docs/inner-loop.md): quarantine by
// code version (POST /swarm/v1/pool/quarantine, /release, GET /swarm/v1/pool/quarantine) and
// forking a recorded call (POST /swarm/v1/fork). Declared once, imported by the worker and the
// workbench, which parses every reply.
import { z } from 'zod';
import { TimelineSchema } from './timeline/index';

const CodeVersion = z.string().min(1).max(200);

export const QuarantineRequestSchema = z.object({ codeVersion: CodeVersion }).strict();
export type QuarantineRequest = z.infer<typeof QuarantineRequestSchema>;

/** The answer to a quarantine or a release: the episodes it moved out of (or back into) the pool. */
export const QuarantineResultSchema = z.object({
  codeVersion: z.string(),
  episodeIds: z.array(z.string()),
  /** Episodes left in the pool afterwards. */
  poolEpisodes: z.number().int(),
});
export type QuarantineResult = z.infer<typeof QuarantineResultSchema>;

export const QuarantineListSchema = z.object({
  quarantined: z.array(z.object({ codeVersion: z.string(), episodeIds: z.array(z.string()), at: z.number() })),
});
export type QuarantineList = z.infer<typeof QuarantineListSchema>;

/**
 * `POST /swarm/v1/fork`: K continuations of a recorded call's exact prompt token ids (not a
 * re-render), sampled with the current weights as eval calls that never enter training. With
 * `edit`, the content of the prompt's last tool or user message is replaced first (that
 * message's span is re-tokenized; everything before it stays the recorded ids).
 */
export const ForkRequestSchema = z
  .object({
    episodeId: z.string().min(1).max(300),
    callIndex: z.number().int().min(0).max(100_000),
    k: z.number().int().min(1).max(32).default(4),
    maxTokens: z.number().int().min(1).max(4096).optional(),
    temperature: z.number().min(0).max(5).default(1),
    edit: z
      .object({ content: z.string().max(100_000) })
      .strict()
      .optional(),
    /** The recorded call itself (from the workbench's store), for an episode the worker no longer holds. */
    timeline: TimelineSchema.optional(),
  })
  .strict();
export type ForkRequest = z.input<typeof ForkRequestSchema>;

export const ForkContinuationSchema = z.object({
  text: z.string(),
  tokenIds: z.array(z.number().int()),
  logprobs: z.array(z.number()),
  finishReason: z.string(),
});
export type ForkContinuation = z.infer<typeof ForkContinuationSchema>;

export const ForkResultSchema = z.object({
  episodeId: z.string(),
  callIndex: z.number().int(),
  weightVersion: z.number().int(),
  /** The recorded turn, for side-by-side display. */
  recorded: ForkContinuationSchema,
  /** Whether the prompt was edited (and which message role was replaced). */
  edited: z.enum(['tool', 'user']).nullable(),
  continuations: z.array(ForkContinuationSchema),
});
export type ForkResult = z.infer<typeof ForkResultSchema>;
