// `agentjet worker`: runs the swarm server — the OpenAI-compatible API, episodes, training —
// until SIGTERM/SIGINT, which checkpoints before exiting. `--resume <run-dir>` continues a run;
// `--config FILE` reads settings from a JSON file (what the workbench passes its local workers).
// Every option's flag, type, default and help come from src/shared/options/declarations.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { nodesOf, startRankNode } from '../../gpu-worker/src/engine/rank-node';
import { startWorker } from '../../gpu-worker/src/worker';
import {
  loraOf,
  WorkerConfigPatchSchema,
  WorkerConfigSchema,
  type WorkerConfig,
  type WorkerConfigInput,
  type WorkerConfigPatch,
} from '../../gpu-worker/src/worker-config';
import { explicitTokenProblem, type TokenName } from '../../gpu-worker/src/swarm/keys';
import { flagShape, fromFlags, helpLines, TRAINING_OPTIONS, WORKER_OPTIONS } from '../shared/options/index';
import { LOG_EVENTS_ONLY_ENV } from '../shared/swarm-events';
import { exitOnSignals } from './signals';

/** Flags of `agentjet worker` that are not worker options. */
const CommandFlags = z.object({
  runDir: z.string().min(1).optional(),
  resume: z.string().min(1).optional(),
  config: z.string().min(1).optional(),
  adminToken: z.string().optional(),
  joinToken: z.string().optional(),
  replicaToken: z.string().optional(),
});

export const WorkerOptionsSchema = CommandFlags.extend({
  ...flagShape(WORKER_OPTIONS),
  ...flagShape(TRAINING_OPTIONS),
}).strict();
export type WorkerOptions = z.input<typeof WorkerOptionsSchema>;

export const workerHelp = [
  'agentjet worker [options]   run the swarm server: OpenAI-compatible API + episodes + training',
  '  --run-dir DIR              where config, tokens, pool and checkpoints live (default runs/<time>)',
  '  --resume DIR               continue the run in DIR at its last checkpoint, pool intact (flags given override its saved config)',
  '  --config FILE              settings from a JSON file (worker options, `training: {…}`); flags given override it',
  ...helpLines(WORKER_OPTIONS),
  ...helpLines(TRAINING_OPTIONS),
  '  --admin-token T --join-token T   tokens (prefer AGENTJET_ADMIN_TOKEN / AGENTJET_JOIN_TOKEN;',
  '                             otherwise generated into <run-dir>/tokens.json, mode 0600); at least',
  '                             16 printable characters each, and the two must differ',
  '  --replica-token T          a token good only for attaching rollout replicas (`agentjet replica`, with',
  '                             --remote-replicas true): give it, not the admin token, to replica hosts',
  '                             (prefer AGENTJET_REPLICA_TOKEN; never generated; must differ from both)',
  '  SIGTERM / Ctrl-C checkpoints and exits, and so does losing the parent process (e.g. under npx);',
  '  run it as `node bin/agentjet.mjs worker` (or the bin directly) so signals reach it.',
].join('\n');

function timestamp(d = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const date = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}`;
  return `${date}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** A `--config` file: worker options and `training`, as JSON, checked against the declared schemas. */
export function readConfigFile(path: string): WorkerConfigPatch {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`--config ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = WorkerConfigPatchSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`--config ${path}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The declared options among parsed flags, as a worker config patch. */
export function configFromFlags(flags: Readonly<Record<string, unknown>>): WorkerConfigPatch {
  return WorkerConfigPatchSchema.parse({
    ...fromFlags(WORKER_OPTIONS, flags),
    training: fromFlags(TRAINING_OPTIONS, flags),
  });
}

/** Flags (over a `--config` file) → worker config: only the given fields, so a resumed run keeps its saved settings. */
export function workerConfigFromOptions(
  given: WorkerOptions,
  cwd = process.cwd(),
): { config: WorkerConfigInput; resume: boolean } {
  const o = WorkerOptionsSchema.parse(given);
  const cmd = o;
  const file = cmd.config !== undefined ? readConfigFile(resolve(cwd, cmd.config)) : {};
  const flagged = configFromFlags(o);
  const runDirGiven = cmd.runDir ?? file.runDir;
  if (cmd.resume && runDirGiven && resolve(cwd, cmd.resume) !== resolve(cwd, runDirGiven))
    throw new Error('--resume names the run dir; do not also give a different --run-dir');
  const runDir = resolve(cwd, cmd.resume ?? runDirGiven ?? join('runs', timestamp()));
  const model = flagged.model ?? file.model;
  if (model && model !== 'builtin' && !existsSync(resolve(cwd, model)))
    throw new Error(`--model ${model}: no such folder (use "builtin" or a Hugging Face model folder)`);
  const config: WorkerConfigInput = {
    ...file,
    ...flagged,
    runDir,
    training: { ...file.training, ...flagged.training },
  };
  if (model !== undefined) config.model = model === 'builtin' ? 'builtin' : resolve(cwd, model);
  if (config.tensorboardDir !== undefined) config.tensorboardDir = resolve(cwd, config.tensorboardDir);
  if (config.tlsCert !== undefined) config.tlsCert = resolve(cwd, config.tlsCert);
  if (config.tlsKey !== undefined) config.tlsKey = resolve(cwd, config.tlsKey);
  const lora = loraOf(config); // --lora-* contradictions are refused here, before anything starts
  if (lora) config.lora = lora;
  return { config, resume: cmd.resume !== undefined };
}

/** Tokens from the flags, else the environment; refused (naming where they came from) when too short or equal. */
export function explicitTokens(
  o: Pick<WorkerOptions, 'adminToken' | 'joinToken' | 'replicaToken'>,
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<TokenName, string>> {
  const tokens: Partial<Record<TokenName, string>> = {};
  const sources: Partial<Record<TokenName, string>> = {};
  const pick = (name: TokenName, flag: string | undefined, variable: string): void => {
    const fromEnv = env[variable];
    if (flag !== undefined) [tokens[name], sources[name]] = [flag, `--${name}-token`];
    else if (fromEnv !== undefined && fromEnv !== '') [tokens[name], sources[name]] = [fromEnv, variable];
  };
  pick('admin', o.adminToken, 'AGENTJET_ADMIN_TOKEN');
  pick('join', o.joinToken, 'AGENTJET_JOIN_TOKEN');
  pick('replica', o.replicaToken, 'AGENTJET_REPLICA_TOKEN');
  const problem = explicitTokenProblem(tokens, sources);
  if (problem) throw new Error(problem);
  return tokens;
}

/** `agentjet worker --node-rank I` (I > 0): this host's engine ranks of a trainer group over several hosts. */
async function runRankNode(o: WorkerConfig): Promise<void> {
  const nodes = nodesOf(o);
  if (!nodes) throw new Error('--node-rank needs --nnodes above it');
  const node = startRankNode({ nodes, procs: o.engineProcs, devices: o.engineDevices, log: (l) => console.error(l) });
  const stopped = exitOnSignals(
    () => node.stop(),
    (signal) => console.log(`${signal}: stopping this node's engine ranks…`),
  );
  console.log(
    `agentjet worker node ${nodes.nodeRank} of ${nodes.nnodes}: ${o.engineProcs} engine rank(s) joining the ` +
      `trainer group at ${nodes.endpoint} (restarted whenever the group ends)`,
  );
  await stopped;
}

export async function runWorker(o: WorkerOptions): Promise<void> {
  const { config, resume } = workerConfigFromOptions(o);
  const parsed = WorkerConfigSchema.parse(config);
  if (parsed.nodeRank > 0) return runRankNode(parsed);
  const tokens = explicitTokens(o);
  // A supervisor that stores the events stream asks for each log line once (there, not on stderr too).
  const starting = startWorker(config, { resume, tokens, echoEventLogs: process.env[LOG_EVENTS_ONLY_ENV] !== '1' });
  // Signals are handled from the start (a stop during start-up waits for it, then checkpoints), so
  // a SIGTERM sent the moment "listening on" appears is never lost.
  const stopped = exitOnSignals(
    async (signal) => (await starting).shutdown(signal),
    (signal) => console.log(`${signal}: checkpointing and shutting down…`),
  );
  const worker = await starting;
  const s = worker.swarm;
  const t = s.training;
  // One write: whoever waits for "listening on" also has the TLS line (its certificate and fingerprint).
  const banner = [
    `agentjet worker listening on ${worker.url} · model ${s.modelName} · step ${s.step} · run dir ${worker.files.dir}`,
    ...(worker.tls
      ? [
          `  TLS: ${worker.tls.selfSigned ? 'self-signed ' : ''}certificate ${worker.tls.certFile} · SHA-256 ` +
            `fingerprint ${worker.tls.fingerprint256}`,
        ]
      : []),
    `  strategy ${t.strategy} · batch ${t.batch} · group ${t.groupSize} · ${t.algo} · merge ` +
      `${t.merge}/${t.level} · lr ${t.lr}`,
  ];
  console.log(banner.join('\n'));
  const plan = worker.engine.info?.plan;
  if (plan) {
    const lora = `LoRA r=${plan.lora?.r ?? '?'} alpha ${plan.lora?.alpha ?? '?'}`;
    const mode = plan.mode === 'lora' ? lora : 'full fine-tune';
    console.log(
      `  training: ${mode} · activation checkpointing ${plan.activationCheckpointing ? 'on' : 'off'}` +
        ` · ${worker.engine.info?.worldSize ?? 1} engine rank(s) — ${plan.reason}`,
    );
  }
  console.log(
    worker.tokensFile
      ? `  tokens: ${worker.tokensFile} (admin and join; mode 0600)`
      : '  tokens: from the environment / flags',
  );
  if (tokens.replica !== undefined)
    console.log(
      '  replica token: from the environment / flags (attaches rollout replicas, nothing else' +
        `${worker.config.remoteReplicas ? ')' : '; unused while --remote-replicas is false)'}`,
    );
  if (worker.config.agentjetCompat)
    console.log(
      `  AgentJet clients: SwarmClient("${worker.url}/agentjet/<join token>") · engine OFFLINE until a client's ` +
        'start_engine',
    );
  await stopped;
}
