// THE declaration of every worker option: type and range, default, flag, help and (for the connect
// form) label. Everything else is derived from these two tables: the config schemas and their
// defaults (options/index.ts), the flags and help of `agentjet worker`, `agentjet train`,
// `agentjet demo` and `agentjet ui`, the workbench's connect form, `<run-dir>/config.json` and the
// `--config` file. To add an option: add one entry below (TRAINING_OPTIONS when an admin may change
// it at run time through PATCH /swarm/v1/config, WORKER_OPTIONS when it is fixed at start), read it
// from the config where it acts, and run `npm run docs` (docs/reference/options.md is generated from here).
import { z } from 'zod';
import { TrainModeSchema } from '../engine-protocol';
import { MatchLevelSchema, MergeModeSchema } from '../timeline/types';
import { ASYNC_TRAINING_OPTIONS, PLACEMENT_OPTIONS } from './placement';
import { bool, enumOf, intIn, numberIn, oneOf, option, text } from './spec';

export const StrategySchema = z.enum(['C1', 'C2', 'C3', 'C4', 'C5']);
export type Strategy = z.infer<typeof StrategySchema>;
export const AlgoSchema = z.enum(['grpo', 'rloo', 'reinforce']);

/** The training settings: every one has a default; an admin may change them while the worker runs. */
export const TRAINING_OPTIONS = {
  strategy: option({
    value: enumOf(StrategySchema),
    default: 'C2',
    flag: 'strategy',
    arg: 'C1..C5',
    label: 'Strategy',
    help: 'when to update: C1 episodes, C2 tasks×group, C3 as C2 without flat groups, C4 any client agrees to sync, C5 all agree',
    choices: {
      C1: 'C1 — enough episodes',
      C2: 'C2 — enough task groups',
      C3: 'C3 — groups with reward variance',
      C4: 'C4 — any client agrees',
      C5: 'C5 — all clients agree',
    },
  }),
  batch: option({
    value: intIn(1, 100_000),
    default: 8,
    flag: 'batch',
    arg: 'N',
    label: 'Batch',
    help: 'C1: episodes per update; C2/C3: tasks per update',
  }),
  groupSize: option({
    value: intIn(1, 1024),
    default: 4,
    flag: 'group-size',
    arg: 'G',
    label: 'Group size',
    help: 'C2/C3: episodes per task, the advantage group',
  }),
  algo: option({
    value: enumOf(AlgoSchema),
    default: 'grpo',
    flag: 'algo',
    help: 'advantage estimator, per taskId group',
  }),
  merge: option({
    value: enumOf(MergeModeSchema),
    default: 'linear',
    flag: 'merge',
    help: 'timeline merging for training (tree packs a task group into prefix trees)',
  }),
  level: option({
    value: enumOf(MatchLevelSchema),
    default: 'token',
    flag: 'level',
    help: 'match level of timeline merging',
  }),
  // 1e-4 is tuned for the built-in model (demo: held-out 27% → 38% in 30 steps); ~1e-6 suits billion-parameter models.
  lr: option({
    value: numberIn(z.number().positive().max(1)),
    default: 1e-4,
    flag: 'lr',
    arg: 'LR',
    label: 'Learning rate',
    help: 'learning rate (AdamW; ~1e-6 for billion-parameter models)',
  }),
  clipLow: option({
    value: numberIn(z.number().min(0).max(1)),
    default: 0.2,
    flag: 'clip-low',
    arg: 'X',
    help: 'PPO clip range, below 1',
  }),
  clipHigh: option({
    value: numberIn(z.number().min(0).max(10)),
    default: 0.28,
    flag: 'clip-high',
    arg: 'Y',
    help: 'PPO clip range, above 1',
  }),
  klCoef: option({
    value: numberIn(z.number().min(0)),
    default: 0,
    flag: 'kl-coef',
    arg: 'K',
    help: 'KL to the initial policy',
  }),
  maxGradNorm: option({
    value: numberIn(z.number().positive()),
    default: 1,
    flag: 'max-grad-norm',
    arg: 'G',
    help: 'gradient clipping norm',
  }),
  microBatchTokens: option({
    value: intIn(1),
    default: 4096,
    flag: 'micro-batch-tokens',
    arg: 'N',
    help: 'train_step micro-batch size in tokens',
  }),
  maxStaleness: option({
    value: intIn(0),
    default: 2,
    flag: 'max-staleness',
    arg: 'K',
    help: 'drop (never train) episodes with a call sampled more than K weight versions ago',
  }),
  checkpointEvery: option({
    value: intIn(0),
    default: 10,
    flag: 'checkpoint-every',
    arg: 'N',
    help: 'checkpoint every N steps; 0 only on SIGTERM/request',
  }),
  temperature: option({
    value: numberIn(z.number().min(0).max(2)),
    default: 1,
    flag: 'temperature',
    arg: 'T',
    help: "the server's sampling temperature (train episodes always use it when forced)",
  }),
  topP: option({
    value: numberIn(z.number().gt(0).max(1)),
    default: 1,
    flag: 'top-p',
    arg: 'P',
    help: "the server's top-p",
  }),
  defaultMaxTokens: option({
    value: intIn(1),
    default: 256,
    flag: 'max-tokens',
    arg: 'N',
    label: 'Max tokens',
    help: 'default max_tokens of a call',
  }),
  maxTokensLimit: option({
    value: intIn(1),
    default: 4096,
    flag: 'max-tokens-limit',
    arg: 'N',
    help: 'largest max_tokens a client may ask for',
  }),
  forceTrainSampling: option({
    value: bool,
    default: true,
    flag: 'force-train-sampling',
    help: "train episodes ignore the client's temperature/top_p (their logprobs are only unbiased under the server's sampling)",
  }),
  ...ASYNC_TRAINING_OPTIONS,
};

/** The worker's start-up settings (fixed while it runs). */
export const WORKER_OPTIONS = {
  model: option({
    value: text(),
    default: 'builtin',
    flag: 'model',
    arg: 'builtin|DIR',
    help: 'the policy: the built-in model or a Hugging Face folder',
  }),
  modelName: option({
    value: text(),
    flag: 'model-name',
    arg: 'NAME',
    help: 'the name served as the OpenAI model',
    unset: 'the folder name',
  }),
  host: option({
    value: text(),
    default: '127.0.0.1',
    flag: 'host',
    arg: 'H',
    help: 'bind address (0.0.0.0 to serve other machines: needs TLS, or --insecure-http true)',
  }),
  tls: option({
    value: oneOf(['off', 'self-signed']),
    default: 'off',
    flag: 'tls',
    help: 'self-signed: serve HTTPS and WSS with a certificate made on first start in <run-dir>/tls (its SHA-256 fingerprint is printed and shown in /health; clients pin it)',
  }),
  tlsCert: option({
    value: text(),
    flag: 'tls-cert',
    arg: 'FILE',
    help: 'serve HTTPS and WSS with this PEM certificate (chain); needs --tls-key',
    unset: 'plain HTTP unless --tls self-signed',
  }),
  tlsKey: option({
    value: text(),
    flag: 'tls-key',
    arg: 'FILE',
    help: 'the PEM private key of --tls-cert',
    unset: 'none',
  }),
  insecureHttp: option({
    value: bool,
    default: false,
    flag: 'insecure-http',
    help: 'allow plain HTTP on a non-loopback --host: tokens, episode keys and conversations then cross the network unencrypted (only behind a TLS-terminating proxy or on a network you trust)',
  }),
  port: option({
    value: intIn(0, 65_535),
    default: 8321,
    flag: 'port',
    arg: 'P',
    help: 'HTTP port (0 picks a free one)',
  }),
  publicUrl: option({
    value: text(z.string().url()),
    flag: 'public-url',
    arg: 'URL',
    help: 'base URL handed to clients in claims',
    unset: 'from the Host header',
  }),
  episodeTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 300,
    flag: 'episode-timeout',
    arg: 'S',
    help: 'default inactivity timeout of an episode, seconds',
  }),
  maxEpisodeTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 3600,
    help: 'largest inactivity timeout a claim may ask for, seconds',
  }),
  clientTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 120,
    flag: 'client-timeout',
    arg: 'S',
    help: 'a silent client is gone after S seconds (its open episodes are aborted)',
  }),
  bodyLimitBytes: option({
    value: intIn(1),
    default: 8 * 1024 * 1024,
    flag: 'body-limit',
    arg: 'BYTES',
    help: 'largest request body',
  }),
  headersTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 10,
    flag: 'headers-timeout',
    arg: 'S',
    help: 'the request line and headers must arrive within S seconds (slowloris)',
  }),
  requestTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 60,
    flag: 'request-timeout',
    arg: 'S',
    help: 'a whole request, body included, must arrive within S seconds',
  }),
  keepAliveTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 30,
    flag: 'keep-alive-timeout',
    arg: 'S',
    help: 'an idle keep-alive connection is closed after S seconds',
  }),
  maxConnectionsPerAddress: option({
    value: intIn(0),
    default: 256,
    flag: 'max-connections-per-address',
    arg: 'N',
    help: 'concurrent connections from one address; more get a 503 (0: no limit)',
  }),
  stopTimeoutS: option({
    value: numberIn(z.number().positive()),
    default: 120,
    flag: 'stop-timeout',
    arg: 'S',
    help: 'SIGTERM waits at most S seconds for the final checkpoint, then stops the engine without it (--resume continues from the previous one)',
  }),
  engineTimeoutScale: option({
    value: numberIn(z.number().positive().max(1000)),
    default: 1,
    flag: 'engine-timeout-scale',
    arg: 'X',
    help: 'multiplies every engine call deadline (a minute for light calls, 2 min + 0.25 s per token for a generation, 1 h for a train step, 2 h for a load); past it the call fails with a 504',
  }),
  maxBatch: option({ value: intIn(1), default: 64, flag: 'max-batch', arg: 'N', help: 'largest generate batch' }),
  device: option({ value: oneOf(['auto', 'cpu', 'cuda']), default: 'auto', flag: 'device', help: 'engine device' }),
  dtype: option({
    value: oneOf(['auto', 'float32', 'bfloat16']),
    default: 'auto',
    flag: 'dtype',
    help: 'engine dtype',
  }),
  threads: option({ value: intIn(1), flag: 'threads', arg: 'T', help: 'torch CPU threads', unset: 'torch decides' }),
  seed: option({
    value: intIn(Number.MIN_SAFE_INTEGER),
    default: 0,
    flag: 'seed',
    arg: 'S',
    help: 'seed of the engine and the server sampling',
  }),
  agentjetCompat: option({
    value: bool,
    default: false,
    flag: 'agentjet-compat',
    help: "also serve AgentJet's SwarmClient routes under /agentjet/<join-token> (the worker then starts paused, ENGINE.OFFLINE, until a client's start_engine)",
  }),
  tensorboardDir: option({
    value: text(),
    flag: 'tensorboard',
    arg: 'DIR',
    help: 'write step, eval and merge metrics as TensorBoard event files into DIR',
    unset: 'none written',
  }),
  trainMode: option({
    value: enumOf(TrainModeSchema),
    default: 'auto',
    flag: 'train-mode',
    label: 'Training mode',
    help: 'full fine-tune or LoRA; auto picks from the parameter count and the device memory, prints what and why, and refuses what cannot fit',
  }),
  loraR: option({
    value: intIn(1, 4096),
    flag: 'lora-r',
    arg: 'R',
    label: 'LoRA rank',
    help: 'LoRA rank (giving it means LoRA)',
    unset: 'the plan decides',
  }),
  loraAlpha: option({
    value: numberIn(z.number().positive()),
    flag: 'lora-alpha',
    arg: 'A',
    label: 'LoRA alpha',
    help: 'LoRA alpha (needs --lora-r)',
    unset: '2·R',
  }),
  loraDropout: option({
    value: numberIn(z.number().min(0).max(0.99)),
    flag: 'lora-dropout',
    arg: 'D',
    help: 'adapter dropout (needs --lora-r)',
    unset: '0',
  }),
  loraTargets: option({
    value: text(z.string().regex(/^[\w.-]+(,[\w.-]+)*$/, 'comma-separated module names, e.g. q_proj,v_proj')),
    flag: 'lora-targets',
    arg: 'q_proj,v_proj',
    label: 'LoRA targets',
    help: 'adapter target modules (needs --lora-r)',
    unset: 'all linear layers',
  }),
  activationCheckpointing: option({
    value: bool,
    flag: 'activation-checkpointing',
    help: 'recompute layers in backward',
    unset: 'on from 200M parameters or when needed to fit',
  }),
  engineProcs: option({
    value: intIn(1, 64),
    default: 1,
    flag: 'engine-procs',
    arg: 'N',
    label: 'Engine ranks',
    help: 'engine ranks: N > 1 trains with FSDP2 over N processes (torchrun; gloo on CPU, NCCL on CUDA with one GPU per rank)',
  }),
  engineDevices: option({
    value: text(z.string().regex(/^\d+(,\d+)*$/, 'comma-separated GPU indices, e.g. 0,1')),
    flag: 'engine-devices',
    arg: '0,1',
    help: 'the GPUs the ranks use (CUDA_VISIBLE_DEVICES)',
    unset: 'all',
  }),
  retainFinished: option({ value: intIn(0), default: 2000, help: 'finished episodes kept in memory for inspection' }),
  ...PLACEMENT_OPTIONS,
};

export type TrainingOptionKey = keyof typeof TRAINING_OPTIONS;
export type WorkerOptionKey = keyof typeof WORKER_OPTIONS;
