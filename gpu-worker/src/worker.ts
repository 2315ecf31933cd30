// The swarm worker's composition root: prepares the run directory (config, secret, tokens,
// state), starts the engine and loads the model (restoring the last checkpoint on --resume),
// opens the durable pool, and serves HTTP + the events WebSocket. `shutdown()` is what SIGTERM
// does: refuse new work, let running generations finish, checkpoint, close everything.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ConfigureParams } from '../../src/shared/engine-protocol';
import type { WorkerFile } from '../../src/shared/swarm-protocol';
import type { GenerationGate } from './engine/admission';
import { placeGeneration } from './worker-placement';
import { gateGenerator } from './engine/generator';
import { stopping } from './worker-stop';
import { BUILTIN_MODEL_DIR, BUILTIN_MODEL_NAME } from './resources';
import { buildApp } from './server/app';
import { EVENTS_PATH, EventsSocketServer } from './server/events-ws';
import { REPLICA_ATTACH_PATH, ReplicaAttachServer } from './server/replica-attach';
import { serveUpgrades } from './server/upgrades';
import type { RemoteReplicas } from './engine/replicas/remote-replicas';
import { prepareTransport, servingUrl, type TlsMaterial } from './server/transport';
import { CompletionService } from './swarm/completions';
import { EngineHost, processEngineFactory, type EngineFactory } from './engine/engine-host';
import { nodesOf } from './engine/rank-node';
import { TokenMatcher, type Role, type TokenName } from './swarm/keys';
import { DurableCounters } from './swarm/durable-counters';
import type { JournalFs } from './swarm/journal-fs';
import {
  emptyCounters,
  loadOrCreateSecret,
  preparePrivateDir,
  readState,
  resolveTokens,
  runFiles,
  writeFileAtomic,
  type RunFiles,
} from './swarm/run-dir';
import { Swarm } from './swarm/swarm';
import { TensorBoardSink } from './swarm/tensorboard-sink';
import type { CheckpointInfo } from './swarm/checkpoints';
import { modelParsers } from './engine/model-family';
import { engineLoadParams, pinnedTraining } from './worker-plan';
import type { ParserChoice } from '../../src/shared/tool-parsers/names';
import { loraOf, WorkerConfigSchema, type WorkerConfig, type WorkerConfigInput } from './worker-config';
import { openPoolAndStart } from './worker-start';

export interface StartOptions {
  /** Continue the run in `config.runDir` (its saved config, overridden by `config` fields given). */
  resume?: boolean;
  /**
   * Explicit tokens (flags / environment); otherwise the admin and join tokens are read from or generated
   * into tokens.json. `replica`, if given, is good only for attaching rollout replicas.
   */
  tokens?: Partial<Record<TokenName, string>>;
  engineFactory?: EngineFactory;
  /** Log sink for worker and engine lines (default stderr). */
  log?: (line: string) => void;
  echoEventLogs?: boolean; // false: `log` events' lines go only to the events stream (its supervisor stores it)
  now?: () => number;
  /** How often expiry and client liveness are checked (default 1 s). */
  sweepIntervalMs?: number;
  /** The pool journal's file system (tests inject I/O failures with a fake). */
  journalFs?: JournalFs;
}

export interface Worker {
  readonly url: string;
  readonly port: number;
  readonly tokens: Record<Role, string>;
  readonly tokensFile: string | null;
  readonly config: WorkerConfig;
  readonly files: RunFiles;
  readonly swarm: Swarm;
  readonly engine: EngineHost;
  /** The admission gate behind the worker's Generator (its stats; tests pause it). */
  readonly scheduler: GenerationGate;

  readonly app: FastifyInstance;
  /** The certificate served (HTTPS and WSS), or null for plain HTTP. */
  readonly tls: TlsMaterial | null;
  checkpoint(reason: string): Promise<CheckpointInfo>;
  /** SIGTERM: stop taking work, finish running generations (bounded), checkpoint, dispose. */
  shutdown(reason?: string): Promise<void>;
  /** Closes everything without a checkpoint. */
  dispose(): Promise<void>;
}

function resolveConfig(input: WorkerConfigInput, resume: boolean): WorkerConfig {
  const runDir = resolve(input.runDir);
  const files = runFiles(runDir);
  if (resume) {
    if (!existsSync(files.config))
      throw new Error(`--resume ${runDir}: no config.json there; is it a worker's run directory?`);
    const saved = JSON.parse(readFileSync(files.config, 'utf8')) as Record<string, unknown>;
    const training = { ...(saved['training'] as object | undefined), ...input.training };
    return WorkerConfigSchema.parse({ ...saved, ...input, training, runDir });
  }
  if (existsSync(files.state) || existsSync(files.pool)) {
    throw new Error(`${runDir} already holds a run; continue it with --resume ${runDir}, or choose another --run-dir`);
  }
  return WorkerConfigSchema.parse({ ...input, runDir });
}

/** The engine's generation settings (applied after every engine start). */
function servingSettings(config: WorkerConfig): ConfigureParams {
  return { maxRows: config.maxBatch };
}

/**
 * After the first load: a new run without --lr trains at the rate the engine's plan chose for this
 * model size and mode, and the plan's mode, LoRA and checkpointing are pinned (config.json and the
 * engine's later loads), so restarts and --resume load what the checkpoints were saved with even if
 * the device's free memory changed meanwhile.
 */
function adoptPlan(
  engine: EngineHost,
  config: WorkerConfig,
  o: { lrGiven: boolean; modelPath: string; configFile: string; log: (line: string) => void },
): void {
  const plan = engine.info?.plan;
  if (!plan) return;
  if (!o.lrGiven) config.training.lr = plan.lr;
  Object.assign(config, pinnedTraining(plan, config.lora));
  engine.pinLoad(engineLoadParams(config, o.modelPath));
  writeFileAtomic(o.configFile, `${JSON.stringify(config, null, 2)}\n`);
  const lora = plan.lora ? ` (LoRA r=${plan.lora.r})` : '';
  const lr = `${config.training.lr}${o.lrGiven ? ' (given)' : ' (chosen for the model size)'}`;
  o.log(`engine: training plan ${plan.mode}${lora}, lr ${lr}: ${plan.reason}`);
}

/** Node's HTTP-level defences from the worker's options (seconds → milliseconds). */
const connectionLimits = (c: WorkerConfig) => ({
  headersTimeoutMs: c.headersTimeoutS * 1000,
  requestTimeoutMs: c.requestTimeoutS * 1000,
  keepAliveTimeoutMs: c.keepAliveTimeoutS * 1000,
  maxConnectionsPerAddress: c.maxConnectionsPerAddress,
});

/** The supervised engine process; until the swarm exists its logs go to `log` and restarts have nobody to tell. */
function supervisedEngine(
  config: WorkerConfig,
  o: {
    modelPath: string;
    initialCheckpoint: string | null;
    log: (line: string) => void;
    swarm: () => Swarm | null;
    factory?: EngineFactory;
  },
): EngineHost {
  return new EngineHost({
    factory:
      o.factory ??
      processEngineFactory({ procs: config.engineProcs, devices: config.engineDevices, nodes: nodesOf(config) }),
    load: engineLoadParams(config, o.modelPath),
    configure: servingSettings(config),
    checkpoint: () => {
      const s = o.swarm();
      return s ? (s.trainer.lastCheckpoint?.path ?? null) : o.initialCheckpoint;
    },
    onLog: (line) => {
      const s = o.swarm();
      if (s) s.log('info', 'engine', line);
      else o.log(`engine: ${line}`);
    },
    onCrash: (reason) => o.swarm()?.onEngineCrash(reason),
    onRecovered: (info) => o.swarm()?.onEngineRecovered(info),
    onFailed: (reason) => o.swarm()?.onEngineFailed(reason),
    deadlines: { scale: config.engineTimeoutScale },
  });
}

/** The resolved config written to the run folder, its secret and tokens, the saved state on resume, the model, TLS. */
function prepareRun(input: WorkerConfigInput, opts: StartOptions) {
  const config = resolveConfig(input, opts.resume ?? false);
  const lora = loraOf(config);
  if (lora) config.lora = lora;
  const files = runFiles(config.runDir);
  preparePrivateDir(files.dir);
  writeFileAtomic(files.config, `${JSON.stringify(config, null, 2)}\n`);
  const secret = loadOrCreateSecret(files);
  const { tokens, replica: replicaToken, file: tokensFile } = resolveTokens(files, opts.tokens ?? {});
  const saved = opts.resume ? readState(files) : null;
  const modelPath = config.model === 'builtin' ? BUILTIN_MODEL_DIR : resolve(config.model);
  const modelName = config.modelName ?? (config.model === 'builtin' ? BUILTIN_MODEL_NAME : basename(modelPath));
  const tls = prepareTransport(config, files.dir); // refuses a plain-HTTP non-loopback bind
  // refuses a folder whose template or tokenizer has no tool-call format this worker knows
  const parsers = modelParsers(modelPath, config);
  return { config, files, secret, tokens, replicaToken, tokensFile, saved, modelPath, modelName, tls, parsers };
}

/**
 * The worker's token checks: `roles` (admin and join) is what every route and upgrade asks; the replica
 * token has a matcher of its own that only the replica attach asks, so nothing else ever knows it.
 */
interface Matchers {
  roles: TokenMatcher;
  replica: TokenMatcher<'replica'> | null;
}

const newMatchers = (tokens: Record<Role, string>, replica: string | null): Matchers => ({
  roles: new TokenMatcher(tokens),
  replica: replica === null ? null : new TokenMatcher<'replica'>({ replica }),
});

/** The events and replica-attach WebSockets on the server; `dispose` closes them. */
function serveSockets(app: FastifyInstance, swarm: Swarm, matchers: Matchers, remote: RemoteReplicas | null) {
  const events = new EventsSocketServer(swarm, matchers.roles);
  const attach = new ReplicaAttachServer(remote, matchers.roles, matchers.replica);
  const stop = serveUpgrades(app.server, { [EVENTS_PATH]: events.upgrade, [REPLICA_ATTACH_PATH]: attach.upgrade });
  return {
    dispose: async (): Promise<void> => {
      stop();
      // Upgraded sockets keep the HTTP server from closing: the replicas' go too (the placement's dispose).
      await Promise.all([events.dispose(), attach.dispose(), remote?.dispose()]);
    },
  };
}

/** The completions path, the HTTP server and its WebSockets, listening (on failure the app is closed). */
async function serve(
  config: WorkerConfig,
  o: {
    swarm: Swarm;
    matchers: Matchers;
    engine: EngineHost;
    scheduler: GenerationGate;
    log: (line: string) => void;
    tls: TlsMaterial | null;
    parsers: ParserChoice;
    remote: RemoteReplicas | null;
  },
): Promise<{ app: FastifyInstance; events: { dispose(): Promise<void> } }> {
  const completions = new CompletionService(
    o.swarm,
    {
      engine: o.engine,
      generator: gateGenerator(o.scheduler),
      contextLength: () => o.engine.info?.contextLength ?? Number.MAX_SAFE_INTEGER,
      parsers: o.parsers,
    },
    config.seed,
  );
  const app = buildApp({
    swarm: o.swarm,
    completions,
    matcher: o.matchers.roles,
    bodyLimit: config.bodyLimitBytes,
    heartbeatS: Math.max(1, Math.floor(config.clientTimeoutS / 4)),
    log: o.log,
    limits: connectionLimits(config),
    agentjetCompat: config.agentjetCompat,
    reset: { swarm: o.swarm, engine: o.engine, generation: o.scheduler },
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    ...(o.tls ? { tls: o.tls } : {}),
  });
  try {
    await app.listen({ host: config.host, port: config.port });
    return { app, events: serveSockets(app, o.swarm, o.matchers, o.remote) };
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
}

/** Opens the pool journal and starts the engine (closing the pool again should the engine fail to start). */
/** Writes `<run-dir>/worker.json` (how to reach the worker) and logs where it serves. */
function announce(
  app: FastifyInstance,
  s: Swarm,
  o: {
    config: WorkerConfig;
    files: RunFiles;
    modelName: string;
    resumed: boolean;
    tensorboard: TensorBoardSink | null;
    tls: TlsMaterial | null;
  },
): { url: string; port: number } {
  const port = (app.server.address() as AddressInfo).port;
  const url = servingUrl(o.config.host, port, o.tls !== null);
  const serving: WorkerFile = { pid: process.pid, url, port, bootId: s.bootId, startedAt: Date.now() };
  writeFileAtomic(o.files.worker, `${JSON.stringify(serving, null, 2)}\n`);
  s.log(
    'info',
    'worker',
    `serving ${o.modelName} at ${url} (step ${s.step}, weight version ${s.weightVersion}, ` +
      `${s.pooled().length} pooled episode(s)${o.resumed ? ', resumed' : ''}` +
      `${o.tls ? `; TLS certificate SHA-256 ${o.tls.fingerprint256}` : ''})`,
  );
  if (o.tensorboard) s.log('info', 'worker', `TensorBoard event file: ${o.tensorboard.file}`);
  return { url, port };
}

type SwarmParts = Omit<ConstructorParameters<typeof Swarm>[0], 'log' | 'now' | 'sweepIntervalMs'>;

/** The swarm of a starting worker, with the test hooks `opts` carries. */
function newSwarm(parts: SwarmParts, opts: StartOptions, log: (line: string) => void): Swarm {
  return new Swarm({
    ...parts,
    ...(opts.echoEventLogs === false ? {} : { log }),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.sweepIntervalMs ? { sweepIntervalMs: opts.sweepIntervalMs } : {}),
  });
}

export async function startWorker(input: WorkerConfigInput, opts: StartOptions = {}): Promise<Worker> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { config, files, secret, tokens, replicaToken, tokensFile, saved, modelPath, modelName, tls, parsers } =
    prepareRun(input, opts);
  if (config.nodeRank > 0)
    throw new Error(`--node-rank ${config.nodeRank}: only node 0 runs the worker (the others: startRankNode)`);
  log(`worker: ${parsers.family} — tool parser ${parsers.choice.tool}, reasoning parser ${parsers.choice.reasoning}`);

  let swarm: Swarm | null = null;
  const initialCheckpoint = saved?.checkpoint ? join(files.dir, saved.checkpoint) : null;
  const engine = supervisedEngine(config, {
    modelPath,
    initialCheckpoint,
    log,
    swarm: () => swarm,
    ...(opts.engineFactory ? { factory: opts.engineFactory } : {}),
  });
  const { pool, teacher } = await openPoolAndStart(engine, files, config, saved?.step ?? 0, log, opts.journalFs);
  adoptPlan(engine, config, {
    lrGiven: opts.resume === true || input.training?.lr !== undefined,
    modelPath,
    configFile: files.config,
    log,
  });
  const placement = await placeGeneration(config, engine, pool, engineLoadParams(config, modelPath), log, () => swarm);
  const scheduler = placement.gate;
  // Counters persist as they change, so kill -9 + --resume never sets them back.
  const counters = DurableCounters.open(files.counters, saved?.counters ?? emptyCounters(), (m) => log(`[warn] ${m}`));
  const parts = { config, modelName, secret, files, engine, pool, saved, teacher, counters: counters.counters };
  const s = newSwarm({ ...parts, generation: scheduler }, opts, log);
  swarm = s;
  pool.onProblem((message) => s.log('error', 'pool', message));
  const tensorboard = config.tensorboardDir ? new TensorBoardSink(config.tensorboardDir) : null;
  if (tensorboard) s.onEvent((e) => tensorboard.onEvent(e));
  const matchers = newMatchers(tokens, replicaToken);
  // An AgentJet swarm server starts OFFLINE: its clients sync their config, then start the engine.
  if (config.agentjetCompat) s.pause();
  const { app, events } = await serve(config, {
    swarm: s,
    matchers,
    engine,
    scheduler,
    log,
    tls,
    parsers: parsers.choice,
    remote: placement.remote,
  }).catch(async (err: unknown) => {
    tensorboard?.close();
    s.dispose();
    counters.close();
    await Promise.allSettled([placement.dispose(), engine.dispose(), pool.dispose()]);
    throw err;
  });
  const { url, port } = announce(app, s, { config, files, modelName, resumed: opts.resume === true, tensorboard, tls });
  s.emitState('started');
  s.trainer.poke();

  const stop = stopping(config, log, {
    swarm: s,
    scheduler,
    engine,
    close: async () => {
      await events.dispose();
      tensorboard?.close();
      s.dispose();
      await app.close();
      await placement.dispose();
      await engine.dispose();
      await pool.dispose();
      counters.close();
    },
  });
  return {
    url,
    port,
    tokens,
    tokensFile,
    config,
    files,
    swarm: s,
    engine,
    scheduler,
    app,
    tls,
    checkpoint: (reason) => s.trainer.checkpoint(reason),
    ...stop,
  };
}
