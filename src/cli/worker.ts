// `agentjet worker`: runs the swarm server — the OpenAI-compatible API, episodes, training —
// until SIGTERM/SIGINT, which checkpoints before exiting. `--resume <run-dir>` continues a run.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { startWorker } from '../../gpu-worker/src/worker';
import type { WorkerConfigInput } from '../../gpu-worker/src/worker-config';
import { TrainModeSchema } from '../shared/engine-protocol';
import { explicitTokenProblem } from '../../gpu-worker/src/swarm/keys';
import { AlgoSchema, StrategySchema, type TrainingConfig } from '../shared/swarm-protocol';
import { MatchLevelSchema, MergeModeSchema } from '../shared/timeline/types';
import { exitOnSignals } from './signals';

const num = z.coerce.number();
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const WorkerOptionsSchema = z
  .object({
    model: z.string().optional(),
    modelName: z.string().optional(),
    port: num.int().min(0).max(65_535).optional(),
    host: z.string().optional(),
    runDir: z.string().optional(),
    resume: z.string().optional(),
    publicUrl: z.string().url().optional(),
    strategy: StrategySchema.optional(),
    batch: num.int().positive().optional(),
    groupSize: num.int().positive().optional(),
    algo: AlgoSchema.optional(),
    merge: MergeModeSchema.optional(),
    level: MatchLevelSchema.optional(),
    lr: num.positive().optional(),
    clipLow: num.min(0).optional(),
    clipHigh: num.min(0).optional(),
    klCoef: num.min(0).optional(),
    maxStaleness: num.int().min(0).optional(),
    checkpointEvery: num.int().min(0).optional(),
    temperature: num.min(0).max(2).optional(),
    topP: num.gt(0).max(1).optional(),
    maxTokens: num.int().positive().optional(),
    maxTokensLimit: num.int().positive().optional(),
    forceTrainSampling: bool.optional(),
    microBatchTokens: num.int().positive().optional(),
    episodeTimeout: num.positive().optional(),
    clientTimeout: num.positive().optional(),
    bodyLimit: num.int().positive().optional(),
    requestTimeout: num.positive().optional(),
    maxConnectionsPerAddress: num.int().min(0).optional(),
    stopTimeout: num.positive().optional(),
    maxBatch: num.int().positive().optional(),
    device: z.enum(['auto', 'cpu', 'cuda']).optional(),
    dtype: z.enum(['auto', 'float32', 'bfloat16']).optional(),
    threads: num.int().positive().optional(),
    seed: num.int().optional(),
    trainMode: TrainModeSchema.optional(),
    loraR: num.int().positive().max(4096).optional(),
    loraAlpha: num.positive().optional(),
    loraDropout: num.min(0).max(0.99).optional(),
    loraTargets: z.string().regex(/^[\w.-]+(,[\w.-]+)*$/, 'comma-separated module names, e.g. q_proj,v_proj').optional(),
    activationCheckpointing: z.enum(['auto', 'on', 'off']).optional(),
    engineProcs: num.int().min(1).max(64).optional(),
    engineDevices: z.string().regex(/^\d+(,\d+)*$/, 'comma-separated GPU indices, e.g. 0,1').optional(),
    adminToken: z.string().optional(),
    joinToken: z.string().optional(),
  })
  .strict();
export type WorkerOptions = z.infer<typeof WorkerOptionsSchema>;

export const workerHelp = `agentjet worker [options]   run the swarm server: OpenAI-compatible API + episodes + training
  --model builtin|DIR        the policy: the built-in model or a Hugging Face folder (default builtin)
  --model-name NAME          the name served as the OpenAI model (default the folder name)
  --port P                   HTTP port (default 8321; 0 picks a free one)
  --host H                   bind address (default 127.0.0.1; 0.0.0.0 to serve other machines)
  --run-dir DIR              where config, tokens, pool and checkpoints live (default runs/<time>)
  --resume DIR               continue the run in DIR at its last checkpoint, pool intact
  --public-url URL           base URL handed to clients in claims (default from the Host header)
  --strategy C1..C5          when to update: C1 episodes, C2 tasks×group, C3 as C2 without flat
                             groups, C4 any client agrees to sync, C5 all agree (default C2)
  --batch N                  C1: episodes per update; C2/C3: tasks per update (default 8)
  --group-size G             C2/C3: episodes per task, the advantage group (default 4)
  --algo grpo|rloo|reinforce advantage estimator (default grpo)
  --merge none|linear|tree   timeline merging for training (default linear)
  --level token|text         match level of timeline merging (default token)
  --lr LR                    learning rate (default 1e-4, tuned for the built-in model; ~1e-6 for large models)
  --clip-low X --clip-high Y PPO clip range (default 0.2 / 0.28)
  --kl-coef K                KL to the initial policy (default 0)
  --max-staleness K          drop episodes sampled more than K versions ago (default 2)
  --checkpoint-every N       checkpoint every N steps; 0 only on SIGTERM/request (default 10)
  --temperature T --top-p P  server sampling (default 1 / 1)
  --force-train-sampling true|false   train episodes use the server's sampling (default true)
  --max-tokens N             default max_tokens of a call (default 256)
  --max-tokens-limit N       largest max_tokens a client may ask for (default 4096)
  --micro-batch-tokens N     train_step micro-batch size in tokens (default 4096)
  --episode-timeout S        default inactivity timeout of an episode (default 300)
  --client-timeout S         a silent client is gone after S seconds (default 120)
  --body-limit BYTES         largest request body (default 8388608)
  --request-timeout S        a request (headers and body) must arrive within S seconds (default 60;
                             headers alone within 10; idle keep-alive connections close after 30)
  --max-connections-per-address N   concurrent connections from one address (default 256; 0: no
                             limit; raise it behind a reverse proxy, where every client shares one)
  --max-batch N              largest generate batch (default 64)
  --device auto|cpu|cuda --dtype auto|float32|bfloat16 --threads T --seed S
  --train-mode auto|full|lora  full fine-tune or LoRA; auto (default) picks from the parameter count
                             and the device memory, prints what and why, and refuses what cannot fit
  --lora-r R --lora-alpha A  LoRA rank and alpha (default alpha 2·R; giving --lora-r means LoRA)
  --lora-dropout D --lora-targets q_proj,v_proj   adapter dropout (0) and target modules (all linear)
  --activation-checkpointing auto|on|off   recompute layers in backward (auto: on from 200M params)
  --engine-procs N           engine ranks: N > 1 trains with FSDP2 over N processes (torchrun;
                             gloo on CPU, NCCL on CUDA with one GPU per rank; default 1)
  --engine-devices 0,1       the GPUs the ranks use (CUDA_VISIBLE_DEVICES; default all)
  --admin-token T --join-token T   tokens (prefer AGENTJET_ADMIN_TOKEN / AGENTJET_JOIN_TOKEN;
                             otherwise generated into <run-dir>/tokens.json, mode 0600); at least
                             16 printable characters each, and the two must differ
  --stop-timeout S           on SIGTERM, wait at most S seconds for the final checkpoint (default
                             120); then the engine is stopped without it
  SIGTERM / Ctrl-C checkpoints and exits, and so does losing the parent process (e.g. under npx);
  run it as \`node bin/agentjet.mjs worker\` (or the bin directly) so signals reach it.`;

function timestamp(d = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** Flags → worker config (only the given fields, so a resumed run keeps its saved settings). */
export function workerConfigFromOptions(o: WorkerOptions, cwd = process.cwd()): { config: WorkerConfigInput; resume: boolean } {
  if (o.resume && o.runDir && resolve(cwd, o.resume) !== resolve(cwd, o.runDir)) throw new Error('--resume names the run dir; do not also give a different --run-dir');
  const runDir = resolve(cwd, o.resume ?? o.runDir ?? join('runs', timestamp()));
  if (o.model && o.model !== 'builtin' && !existsSync(resolve(cwd, o.model))) throw new Error(`--model ${o.model}: no such folder (use "builtin" or a Hugging Face model folder)`);
  const training: Partial<TrainingConfig> = {};
  const set = <K extends keyof TrainingConfig>(k: K, v: TrainingConfig[K] | undefined): void => {
    if (v !== undefined) training[k] = v;
  };
  set('strategy', o.strategy); set('batch', o.batch); set('groupSize', o.groupSize); set('algo', o.algo); set('merge', o.merge);
  set('level', o.level); set('lr', o.lr); set('clipLow', o.clipLow); set('clipHigh', o.clipHigh); set('klCoef', o.klCoef);
  set('maxStaleness', o.maxStaleness); set('checkpointEvery', o.checkpointEvery); set('temperature', o.temperature); set('topP', o.topP);
  set('defaultMaxTokens', o.maxTokens); set('maxTokensLimit', o.maxTokensLimit); set('forceTrainSampling', o.forceTrainSampling);
  set('microBatchTokens', o.microBatchTokens);
  const config: Record<string, unknown> = { runDir, training };
  const copy: [keyof WorkerOptions, string][] = [
    ['modelName', 'modelName'], ['port', 'port'], ['host', 'host'], ['publicUrl', 'publicUrl'], ['episodeTimeout', 'episodeTimeoutS'],
    ['clientTimeout', 'clientTimeoutS'], ['bodyLimit', 'bodyLimitBytes'], ['requestTimeout', 'requestTimeoutS'], ['maxConnectionsPerAddress', 'maxConnectionsPerAddress'], ['stopTimeout', 'stopTimeoutS'], ['maxBatch', 'maxBatch'], ['device', 'device'], ['dtype', 'dtype'],
    ['threads', 'threads'], ['seed', 'seed'],
  ];
  for (const [from, to] of copy) if (o[from] !== undefined) config[to] = o[from];
  Object.assign(config, engineOptions(o));
  if (o.model !== undefined) config['model'] = o.model === 'builtin' ? 'builtin' : resolve(cwd, o.model);
  return { config: config as WorkerConfigInput, resume: o.resume !== undefined };
}

/** The engine flags: training mode, LoRA, checkpointing, ranks and devices → worker config fields. */
function engineOptions(o: WorkerOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (o.trainMode !== undefined) out['trainMode'] = o.trainMode;
  if (o.loraR !== undefined || o.loraAlpha !== undefined || o.loraDropout !== undefined || o.loraTargets !== undefined) {
    if (o.loraR === undefined) throw new Error('--lora-alpha/--lora-dropout/--lora-targets need --lora-r');
    if (o.trainMode === 'full') throw new Error('--train-mode full contradicts the --lora-* flags');
    out['lora'] = {
      r: o.loraR, alpha: o.loraAlpha ?? 2 * o.loraR,
      ...(o.loraDropout !== undefined ? { dropout: o.loraDropout } : {}),
      ...(o.loraTargets !== undefined ? { targetModules: o.loraTargets.split(',') } : {}),
    };
  }
  if (o.activationCheckpointing !== undefined && o.activationCheckpointing !== 'auto') out['activationCheckpointing'] = o.activationCheckpointing === 'on';
  if (o.engineProcs !== undefined) out['engineProcs'] = o.engineProcs;
  if (o.engineDevices !== undefined) out['engineDevices'] = o.engineDevices;
  return out;
}

/** Tokens from the flags, else the environment; refused (naming where they came from) when too short or equal. */
export function explicitTokens(o: Pick<WorkerOptions, 'adminToken' | 'joinToken'>, env: NodeJS.ProcessEnv = process.env): Partial<Record<'admin' | 'join', string>> {
  const tokens: Partial<Record<'admin' | 'join', string>> = {};
  const sources: Partial<Record<'admin' | 'join', string>> = {};
  const pick = (role: 'admin' | 'join', flag: string | undefined, name: string): void => {
    const fromEnv = env[name];
    if (flag !== undefined) [tokens[role], sources[role]] = [flag, `--${role}-token`];
    else if (fromEnv !== undefined && fromEnv !== '') [tokens[role], sources[role]] = [fromEnv, name];
  };
  pick('admin', o.adminToken, 'AGENTJET_ADMIN_TOKEN');
  pick('join', o.joinToken, 'AGENTJET_JOIN_TOKEN');
  const problem = explicitTokenProblem(tokens, sources);
  if (problem) throw new Error(problem);
  return tokens;
}

export async function runWorker(o: WorkerOptions): Promise<void> {
  const { config, resume } = workerConfigFromOptions(o);
  const tokens = explicitTokens(o);
  const starting = startWorker(config, { resume, tokens });
  // Signals are handled from the start (a stop during start-up waits for it, then checkpoints), so
  // a SIGTERM sent the moment "listening on" appears is never lost.
  const stopped = exitOnSignals(async (signal) => (await starting).shutdown(signal), (signal) => console.log(`${signal}: checkpointing and shutting down…`));
  const worker = await starting;
  const s = worker.swarm;
  console.log(`agentjet worker listening on ${worker.url} · model ${s.modelName} · step ${s.step} · run dir ${worker.files.dir}`);
  console.log(`  strategy ${s.training.strategy} · batch ${s.training.batch} · group ${s.training.groupSize} · ${s.training.algo} · merge ${s.training.merge}/${s.training.level} · lr ${s.training.lr}`);
  const plan = worker.engine.info?.plan;
  if (plan) console.log(`  training: ${plan.mode === 'lora' ? `LoRA r=${plan.lora?.r ?? '?'} alpha ${plan.lora?.alpha ?? '?'}` : 'full fine-tune'} · activation checkpointing ${plan.activationCheckpointing ? 'on' : 'off'} · ${worker.engine.info?.worldSize ?? 1} engine rank(s) — ${plan.reason}`);
  console.log(worker.tokensFile ? `  tokens: ${worker.tokensFile} (admin and join; mode 0600)` : '  tokens: from the environment / flags');
  await stopped;
}
