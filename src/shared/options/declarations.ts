// THE declaration of every worker option: type and range, default, flag, help and (for the connect
// form) label. Everything else is derived from these two tables: the config schemas and their
// defaults (options/index.ts), the flags and help of `agentjet worker`, `agentjet train`,
// `agentjet demo` and `agentjet ui`, the workbench's connect form, `<run-dir>/config.json` and the
// `--config` file. To add an option: add one entry below (TRAINING_OPTIONS when an admin may change
// it at run time through PATCH /swarm/v1/config, WORKER_OPTIONS when it is fixed at start), read it
// from the config where it acts, and run `npm run docs` (docs/reference/options.md is generated from here).
import { z } from 'zod';
import { REWARD_SCALES } from '../advantages';
import { MAX_TOP_K, TrainModeSchema } from '../engine-protocol';
import { MatchLevelSchema, MergeModeSchema } from '../timeline/types';
import { MODEL_FAMILY_OPTIONS } from './model-family';
import { SERVER_OPTIONS } from './server-options';
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
    help:
      'when to update: C1 episodes, C2 tasks×group, C3 as C2 without flat groups, C4 any client agrees to ' +
      'sync, C5 all agree',
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
  scaleRewards: option({
    value: enumOf(z.enum(REWARD_SCALES)),
    default: 'group',
    flag: 'scale-rewards',
    help:
      "GRPO: divide each reward's distance from its group's mean by the group's std (group), the update's " +
      "(batch: for continuous scores such as a reward model's), or not at all (none, Dr. GRPO)",
  }),
  // tree since 2026-12-07: 1.1–1.7× the updates of linear in the same minutes and no lower held-out success
  // (docs/studies/merge-default.md); each tree is bounded by the micro-batch budget (train-samples.ts).
  merge: option({
    value: enumOf(MergeModeSchema),
    default: 'tree',
    flag: 'merge',
    help: 'timeline merging for training: tree (a task group packed into prefix trees), linear, none',
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
  distillWeight: option({
    value: numberIn(z.number().min(0).max(1)),
    default: 1,
    flag: 'distill-weight',
    help:
      'with --teacher-url: per-token advantage (1−w)·task + w·(log π_teacher − log π_student); ' +
      '1: distillation alone',
  }),
  distillKeep: option({
    value: numberIn(z.number().gt(0).max(1)),
    default: 1,
    flag: 'distill-keep',
    help:
      "with --teacher-url: fraction of an update's samples it trains, those where the teacher disagrees most " +
      'per token (mean |log π_student − log π_teacher|); 1: every sample',
  }),
  forceTrainSampling: option({
    value: bool,
    default: true,
    flag: 'force-train-sampling',
    help:
      "train episodes ignore the client's temperature/top_p " +
      "(their logprobs are only unbiased under the server's sampling)",
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
  // The HTTP server's: address, TLS, public URL, episode and connection timeouts, limits (server-options.ts).
  ...SERVER_OPTIONS,
  engineTimeoutScale: option({
    value: numberIn(z.number().positive().max(1000)),
    default: 1,
    flag: 'engine-timeout-scale',
    arg: 'X',
    help:
      'multiplies every engine call deadline (a minute for light calls, 2 min + 0.25 s per token for a ' +
      'generation, 1 h for a train step, 2 h for a load); past it the call fails with a 504',
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
    help:
      "also serve AgentJet's SwarmClient routes under /agentjet/<join-token> " +
      "(the worker then starts paused, ENGINE.OFFLINE, until a client's start_engine)",
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
    help:
      'full fine-tune or LoRA; auto picks from the parameter count and the device memory, prints what and ' +
      'why, and refuses what cannot fit',
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
    help:
      'engine ranks: N > 1 trains with FSDP2 over N processes (torchrun; gloo on CPU, NCCL on CUDA with one ' +
      'GPU per rank)',
  }),
  engineDevices: option({
    value: text(z.string().regex(/^\d+(,\d+)*$/, 'comma-separated GPU indices, e.g. 0,1')),
    flag: 'engine-devices',
    arg: '0,1',
    help: 'the GPUs the ranks use (CUDA_VISIBLE_DEVICES)',
    unset: 'all',
  }),
  teacherUrl: option({
    value: text(z.string().url()),
    flag: 'teacher-url',
    help: 'on-policy distillation: the teacher worker (same tokenizer) scoring the sampled tokens; unset: none',
  }),
  teacherToken: option({ value: text(), flag: 'teacher-token', arg: 'T', help: "the teacher's admin token" }),
  distillTopK: option({
    value: intIn(0, MAX_TOP_K),
    default: 0,
    flag: 'distill-top-k',
    arg: 'K',
    help:
      "with --teacher-url: train on the KL to the teacher's top-K distribution at every trained position " +
      '(weighted by --distill-weight) instead of its logprob of the sampled token; 0: the sampled tokens',
  }),
  retainFinished: option({ value: intIn(0), default: 2000, help: 'finished episodes kept in memory for inspection' }),
  ...MODEL_FAMILY_OPTIONS,
  ...PLACEMENT_OPTIONS,
};

export type TrainingOptionKey = keyof typeof TRAINING_OPTIONS;
export type WorkerOptionKey = keyof typeof WORKER_OPTIONS;
