// The workbench methods of the researcher's inner loop (docs/inner-loop.md), merged into the one
// method table of workbench-api.ts: quarantine by code version, fork a recorded call, saved probes.
import { z } from 'zod';
import {
  ForkRewardsSchema,
  forkK,
  forkSettings,
  ProbePointSchema,
  ProbeSchema,
  ProbeSpecSchema,
  QuarantineMarkSchema,
  RewardTryResultSchema,
} from './inner-loop';
import { BoardFigureSchema } from './regress';
import { ForkResultSchema, QuarantineListSchema, QuarantineResultSchema } from './swarm-inner-loop';

const Id = z.string().min(1).max(300);
const CodeVersion = z.string().min(1).max(200);

export const innerLoopMethods = {
  /**
   * Runs reward code (a run file, with unsaved `content` when given) over the live run's last N
   * ended train episodes in a child process; the verdict compares it with their recorded rewards.
   */
  rewardTry: {
    params: z
      .object({
        path: z.string().min(1).max(1000),
        content: z.string().max(2_000_000).optional(),
        last: z.number().int().min(1).max(5000).default(200),
        task: z.string().min(1).max(200).optional(),
        codeVersion: CodeVersion.optional(),
        exportName: z
          .string()
          .regex(/^[A-Za-z_$][\w$]*$/)
          .optional(),
        timeoutMs: z.number().int().min(10).max(60_000).default(2000),
      })
      .strict(),
    result: RewardTryResultSchema,
  },
  /** Holds the live run's pooled, untrained episodes of a code version out of training (marked in the store). */
  quarantine: { params: z.object({ codeVersion: CodeVersion }).strict(), result: QuarantineResultSchema },
  /** Undoes a quarantine: the version's held episodes rejoin the pool. */
  releaseQuarantine: { params: z.object({ codeVersion: CodeVersion }).strict(), result: QuarantineResultSchema },
  /** A run's quarantine marks, and (for the live run) what the worker holds now. */
  quarantineList: {
    params: z.object({ runId: Id }).strict(),
    result: z.object({ marks: z.array(QuarantineMarkSchema), held: QuarantineListSchema.shape.quarantined.nullable() }),
  },
  /** K continuations of a stored call's exact prompt ids with the live worker's current weights (never trained). */
  forkCall: {
    params: z
      .object({
        runId: Id,
        episodeId: Id,
        ...forkSettings,
        k: forkK(4),
      })
      .strict(),
    /** With the reward each continuation (and the recorded turn) would get under the run's reward code. */
    result: ForkResultSchema.extend({ rewards: ForkRewardsSchema }),
  },
  /** The regression board (`agentjet regress show`): each stored figure by commit with its band and flag. */
  regressBoard: {
    params: z
      .object({ bench: z.string().min(1).max(100).optional(), window: z.number().int().min(1).max(50).default(5) })
      .strict(),
    result: z.object({ figures: z.array(BoardFigureSchema) }),
  },
  /** Saves a fork as a named probe of the live run and runs it once now. */
  saveProbe: {
    params: z.object({ name: z.string().min(1).max(200), spec: ProbeSpecSchema }).strict(),
    result: z.object({ probe: ProbeSchema, point: ProbePointSchema }),
  },
  /** Runs every saved probe of the live run against the current weights (one point per probe). */
  runProbes: { params: z.object({}).strict(), result: z.object({ points: z.array(ProbePointSchema) }) },
  /** A run's probes with their points over weight versions. */
  probes: {
    params: z.object({ runId: Id }).strict(),
    result: z.object({ probes: z.array(ProbeSchema.extend({ points: z.array(ProbePointSchema) })) }),
  },
} as const;
