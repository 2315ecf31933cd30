// The worker's configuration: what `agentjet worker` flags set and `<run-dir>/config.json`
// records (never the tokens). The training part can also be changed at run time by an admin.
import { z } from 'zod';
import { LoraOptionsSchema, TrainModeSchema } from '../../src/shared/engine-protocol';
import { TrainingConfigSchema } from '../../src/shared/swarm-protocol';
import { DEFAULT_CONNECTION_LIMITS } from './server/connections';

export const WorkerConfigSchema = z.object({
  /** `builtin` or a Hugging Face model folder. */
  model: z.string().min(1).default('builtin'),
  /** The name served as the OpenAI `model` (default: the folder's name). */
  modelName: z.string().min(1).optional(),
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(8321),
  runDir: z.string().min(1),
  /** Base URL handed to clients in claims (default: from the request's Host header). */
  publicUrl: z.string().url().optional(),
  training: TrainingConfigSchema.default(TrainingConfigSchema.parse({})),
  /** Default and largest inactivity timeout of an episode. */
  episodeTimeoutS: z.number().positive().default(300),
  maxEpisodeTimeoutS: z.number().positive().default(3600),
  /** A client silent for this long is considered gone and its open episodes are aborted. */
  clientTimeoutS: z.number().positive().default(120),
  /** Largest request body in bytes. */
  bodyLimitBytes: z.number().int().positive().default(8 * 1024 * 1024),
  /** Connection defences (server/connections.ts): headers, whole request, idle keep-alive; per-address bound (0: none). */
  headersTimeoutS: z.number().positive().default(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs / 1000),
  requestTimeoutS: z.number().positive().default(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000),
  keepAliveTimeoutS: z.number().positive().default(DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs / 1000),
  maxConnectionsPerAddress: z.number().int().min(0).default(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress),
  /** Largest generate batch, and the chunk sizes of streamed generations. */
  maxBatch: z.number().int().positive().default(64),
  firstChunk: z.number().int().positive().default(8),
  maxChunk: z.number().int().positive().default(64),
  device: z.enum(['auto', 'cpu', 'cuda']).default('auto'),
  dtype: z.enum(['auto', 'float32', 'bfloat16']).default('auto'),
  threads: z.number().int().positive().optional(),
  seed: z.number().int().default(0),
  lora: LoraOptionsSchema.optional(),
  /** Full fine-tune or LoRA; `auto` picks from the parameter count and the device memory (the engine's plan). */
  trainMode: TrainModeSchema.default('auto'),
  /** Absent: on from 200M parameters or when needed to fit. */
  activationCheckpointing: z.boolean().optional(),
  /** Engine ranks: N > 1 trains with FSDP2 over N processes (torchrun; gloo on CPU, NCCL on CUDA, one GPU each). */
  engineProcs: z.number().int().min(1).max(64).default(1),
  /** CUDA devices the engine's ranks use (CUDA_VISIBLE_DEVICES), e.g. "0,1". */
  engineDevices: z.string().regex(/^\d+(,\d+)*$/, 'a comma-separated list of GPU indices').optional(),
  /** SIGTERM: the longest a shutdown waits for the final checkpoint before stopping the engine without it. */
  stopTimeoutS: z.number().positive().default(120),
  /** Finished episodes kept in memory for inspection. */
  retainFinished: z.number().int().min(0).default(2000),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;
export type WorkerConfigInput = z.input<typeof WorkerConfigSchema>;
