// The swarm worker's composition root: prepares the run directory (config, secret, tokens,
// state), starts the engine and loads the model (restoring the last checkpoint on --resume),
// opens the durable pool, and serves HTTP + the events WebSocket. `shutdown()` is what SIGTERM
// does: refuse new work, let running generations finish, checkpoint, close everything.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ConfigureParams } from '../../src/shared/engine-protocol';
import { Admission, type GenerationGate } from './engine/admission';
import { DecodeScheduler } from './engine/decode-scheduler';
import { LegacyGate } from './engine/legacy-gate';
import { BUILTIN_MODEL_DIR, BUILTIN_MODEL_NAME } from './resources';
import { buildApp } from './server/app';
import { EventsSocketServer } from './server/events-ws';
import { CompletionService } from './swarm/completions';
import { EngineHost, processEngineFactory, type EngineFactory } from './swarm/engine-host';
import { unavailable } from './swarm/errors';
import { TokenMatcher, type Role } from './swarm/keys';
import { DurablePool } from './swarm/pool';
import { loadOrCreateSecret, readState, resolveTokens, runFiles, writeFileAtomic, type RunFiles } from './swarm/run-dir';
import { Swarm } from './swarm/swarm';
import type { CheckpointInfo } from './swarm/trainer';
import { WorkerConfigSchema, type WorkerConfig, type WorkerConfigInput } from './worker-config';

export interface StartOptions {
  /** Continue the run in `config.runDir` (its saved config, overridden by `config` fields given). */
  resume?: boolean;
  /** Explicit tokens (flags / environment); otherwise read from or generated into tokens.json. */
  tokens?: Partial<Record<Role, string>>;
  engineFactory?: EngineFactory;
  /** Log sink for worker and engine lines (default stderr). */
  log?: (line: string) => void;
  now?: () => number;
  /** How often expiry and client liveness are checked (default 1 s). */
  sweepIntervalMs?: number;
  /**
   * `continuous` (default): the engine's continuous batcher behind the admission gate. `legacy`:
   * today's static batches with chunked re-prefill, kept for benchmark comparisons.
   */
  servingMode?: 'continuous' | 'legacy';
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
  readonly app: FastifyInstance;
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
    if (!existsSync(files.config)) throw new Error(`--resume ${runDir}: no config.json there; is it a worker's run directory?`);
    const saved = JSON.parse(readFileSync(files.config, 'utf8')) as Record<string, unknown>;
    const training = { ...(saved['training'] as object | undefined), ...input.training };
    return WorkerConfigSchema.parse({ ...saved, ...input, training, runDir });
  }
  if (existsSync(files.state) || existsSync(files.pool)) {
    throw new Error(`${runDir} already holds a run; continue it with --resume ${runDir}, or choose another --run-dir`);
  }
  return WorkerConfigSchema.parse({ ...input, runDir });
}

/** The engine's generation settings for a serving mode (applied after every engine start). */
function servingSettings(config: WorkerConfig, mode: 'continuous' | 'legacy'): ConfigureParams {
  return mode === 'legacy' ? { mode: 'static' } : { mode: 'continuous', maxRows: config.maxBatch };
}

/** The admission gate in front of the engine: twice what the engine decodes at once may be in flight. */
function generationGate(engine: EngineHost, config: WorkerConfig, mode: 'continuous' | 'legacy'): GenerationGate {
  if (mode === 'legacy') {
    return new LegacyGate(
      new DecodeScheduler(
        { generate: (requests) => engine.call('generate', { requests }), decode: async (sequences) => (await engine.call('decode', { sequences })).texts },
        { maxBatch: config.maxBatch, firstChunk: config.firstChunk, maxChunk: config.maxChunk },
      ),
    );
  }
  const s = engine.info?.serving;
  const kvTokens = s?.kvCacheBytes !== undefined && s.bytesPerToken ? Math.floor(s.kvCacheBytes / s.bytesPerToken) : undefined;
  return new Admission(engine, { maxInFlight: 2 * config.maxBatch, ...(kvTokens ? { maxTokensInFlight: 2 * kvTokens } : {}) });
}

export async function startWorker(input: WorkerConfigInput, opts: StartOptions = {}): Promise<Worker> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const config = resolveConfig(input, opts.resume ?? false);
  const files = runFiles(config.runDir);
  mkdirSync(files.dir, { recursive: true });
  writeFileAtomic(files.config, `${JSON.stringify(config, null, 2)}\n`);
  const secret = loadOrCreateSecret(files);
  const { tokens, file: tokensFile } = resolveTokens(files, opts.tokens ?? {});
  const saved = opts.resume ? readState(files) : null;
  const modelPath = config.model === 'builtin' ? BUILTIN_MODEL_DIR : resolve(config.model);
  const modelName = config.modelName ?? (config.model === 'builtin' ? BUILTIN_MODEL_NAME : basename(modelPath));

  let swarm: Swarm | null = null;
  const initialCheckpoint = saved?.checkpoint ? join(files.dir, saved.checkpoint) : null;
  const servingMode = opts.servingMode ?? 'continuous';
  const engine = new EngineHost({
    factory: opts.engineFactory ?? processEngineFactory(),
    configure: servingSettings(config, servingMode),
    load: { path: modelPath, device: config.device, dtype: config.dtype, seed: config.seed, ...(config.threads ? { threads: config.threads } : {}), ...(config.lora ? { lora: config.lora } : {}) },
    checkpoint: () => (swarm ? (swarm.trainer.lastCheckpoint?.path ?? null) : initialCheckpoint),
    onLog: (line) => (swarm ? swarm.log('info', 'engine', line) : log(`engine: ${line}`)),
    onCrash: (reason) => swarm?.onEngineCrash(reason),
    onRecovered: (info) => swarm?.onEngineRecovered(info),
    onFailed: (reason) => swarm?.onEngineFailed(reason),
  });
  const pool = await DurablePool.open(files.pool, saved?.step ?? 0, (m) => log(`[warn] pool: ${m}`));
  try {
    await engine.start();
  } catch (err) {
    await pool.dispose();
    throw err;
  }
  const scheduler = generationGate(engine, config, servingMode);
  const s = new Swarm({ config, modelName, secret, files, engine, scheduler, pool, saved, log, ...(opts.now ? { now: opts.now } : {}), ...(opts.sweepIntervalMs ? { sweepIntervalMs: opts.sweepIntervalMs } : {}) });
  swarm = s;
  const completions = new CompletionService(s, config.seed);
  const matcher = new TokenMatcher(tokens);
  const app = buildApp({ swarm: s, completions, matcher, bodyLimit: config.bodyLimitBytes, heartbeatS: Math.max(1, Math.floor(config.clientTimeoutS / 4)), log, ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}) });
  let events: EventsSocketServer | null = null;
  try {
    await app.listen({ host: config.host, port: config.port });
    events = new EventsSocketServer(app.server, s, matcher);
  } catch (err) {
    s.dispose();
    await Promise.allSettled([app.close(), engine.dispose(), pool.dispose()]);
    throw err;
  }
  const port = (app.server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`;
  writeFileAtomic(files.worker, `${JSON.stringify({ pid: process.pid, url, port, bootId: s.bootId, startedAt: Date.now() }, null, 2)}\n`);
  s.log('info', 'worker', `serving ${modelName} at ${url} (step ${s.step}, weight version ${s.weightVersion}, ${pool.size} pooled episode(s)${opts.resume ? ', resumed' : ''})`);
  s.emitState('started');
  s.trainer.poke();

  let disposed: Promise<void> | null = null;
  const dispose = (): Promise<void> => {
    disposed ??= (async () => {
      s.stopping = true;
      scheduler.failAll(unavailable('stopping', 'the worker is shutting down', 30));
      await events?.dispose();
      s.dispose();
      await app.close();
      await engine.dispose();
      await pool.dispose();
    })();
    return disposed;
  };

  return {
    url, port, tokens, tokensFile, config, files, swarm: s, engine, app,
    checkpoint: (reason) => s.trainer.checkpoint(reason),
    shutdown: async (reason = 'shutdown') => {
      if (disposed) return disposed;
      s.stopping = true;
      s.emitState(reason);
      await Promise.race([scheduler.pause(), new Promise((r) => setTimeout(r, 10_000).unref())]);
      if (engine.status === 'ready') {
        try {
          await s.trainer.checkpoint(reason);
        } catch (err) {
          log(`[error] worker: checkpoint on ${reason} failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      await dispose();
    },
    dispose,
  };
}
