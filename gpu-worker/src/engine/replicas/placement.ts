// Where generation runs (issue #21 §1): by default in the trainer's own engine behind one Admission gate
// (today's single colocated process); with --rollout-replicas R, in R inference-only engine processes
// (role `replica`: own continuous batcher and prefix cache, own threads or GPU, weights in the serving
// dtype) behind a ReplicaRouter, the trainer pushing its weights to them after every update (WeightSync).
// Each replica is supervised like the trainer's engine (EngineHost): one that dies fails its calls with
// a 503, restarts, re-joins the sync and gets the current weights; training never waits for it.
// With --remote-replicas, hosts running `agentjet replica` add replicas to the same router over the
// network (remote-replicas.ts); the trainer's store then listens where they can reach it.
import { cpus } from 'node:os';
import type { ConfigureParams, LoadParams } from '../../../../src/shared/engine-protocol';
import { Admission, type GenerationGate } from '../admission';
import { BusyClock } from '../busy-clock';
import { EngineHost, processEngineFactory, type EngineFactory } from '../engine-host';
import { modelFiles } from './model-files';
import { RemoteReplicas } from './remote-replicas';
import { ReplicaRouter, type Replica } from './replica-router';
import { WeightSync } from './weight-sync';

/** The worker settings placement reads (options/placement.ts declares them). */
export interface PlacementConfig {
  maxBatch: number;
  rolloutReplicas: number;
  /** Take rollout replicas from other hosts (`agentjet replica`). */
  remoteReplicas: boolean;
  /** Where those hosts reach the trainer's weight-sync store (default: the host name they dialled). */
  syncHost?: string | undefined;
  rolloutDevices?: string | undefined;
  replicaThreads?: number | undefined;
  rdzvEndpoint?: string | undefined;
  /** > 1: --rdzv-endpoint is the trainer group's torchrun rendezvous; the weight sync takes a free port. */
  nnodes: number;
  syncTimeoutS: number;
  inflight: 'swap' | 'finish';
  async: boolean;
  engineTimeoutScale: number;
  /** Read at every admission: an admin may change it while the worker runs. */
  training: { stalenessBound: number };
}

export interface Placement {
  gate: GenerationGate;
  router: ReplicaRouter | null;
  /** The replicas of other hosts (null: --remote-replicas is off). */
  remote: RemoteReplicas | null;
  dispose(): Promise<void>;
}

export interface PlacementOptions {
  /** The trainer's load params (its pinned plan): replicas load the same model, LoRA settings included. */
  load: LoadParams;
  log: (level: 'info' | 'error', source: string, message: string) => void;
  /** Replica engines (tests: a fake or a differently started process); default: a Python process each. */
  factory?: (index: number) => EngineFactory;
  now?: () => number;
}

/** The admission gate in front of one engine: twice what the engine decodes at once may be in flight. */
export function engineGate(engine: EngineHost, config: PlacementConfig): Admission {
  const s = engine.info?.serving;
  const kvTokens =
    s?.kvCacheBytes !== undefined && s.bytesPerToken ? Math.floor(s.kvCacheBytes / s.bytesPerToken) : undefined;
  return new Admission(engine, {
    maxInFlight: 2 * config.maxBatch,
    ...(kvTokens ? { maxTokensInFlight: 2 * kvTokens } : {}),
    served: () => engine.info?.serving,
  });
}

/** A replica's load params: the trainer's model and LoRA settings, its own threads and device. */
export function replicaLoad(config: PlacementConfig, load: LoadParams): LoadParams {
  const gpus = config.rolloutDevices?.split(',');
  const threads = config.replicaThreads ?? Math.max(1, Math.floor(cpus().length / (config.rolloutReplicas + 1)));
  return {
    ...load,
    role: 'replica',
    threads,
    ...(gpus ? { device: 'cuda' as const } : {}),
  };
}

/** Where the trainer's store listens: --rdzv-endpoint (one node), else a free port (any interface: remote replicas). */
const endpointOf = (config: PlacementConfig): { host: string; port: number } | undefined => {
  const m = config.nnodes > 1 ? null : config.rdzvEndpoint?.match(/^(.+):(\d+)$/);
  if (m) return { host: m[1]!, port: Number(m[2]) };
  return config.remoteReplicas ? { host: '0.0.0.0', port: 0 } : undefined;
};

/** A replica's gate, clocks and counters around its engine. */
function replicaOf(
  config: PlacementConfig,
  now: () => number,
  index: number,
  engine: EngineHost,
  host?: string,
): Replica {
  return {
    index,
    engine,
    gate: engineGate(engine, config),
    busy: new BusyClock(now()),
    tokens: 0,
    calls: 0,
    link: null,
    joins: 0,
    version: -1,
    ...(host ? { host } : {}),
  };
}

function replicaHost(config: PlacementConfig, o: PlacementOptions, index: number, router: () => ReplicaRouter | null) {
  const gpus = config.rolloutDevices?.split(',');
  const configure: ConfigureParams = { maxRows: config.maxBatch };
  return new EngineHost({
    factory: o.factory?.(index) ?? processEngineFactory({ procs: 1, devices: gpus?.[index % gpus.length] }),
    load: replicaLoad(config, o.load),
    configure,
    checkpoint: () => null, // its weights come from the trainer's sync
    onLog: (line) => o.log('info', `replica ${index}`, line),
    onCrash: (reason) => router()?.replicaDown(index, reason),
    onRecovered: () => router()?.replicaUp(index),
    onFailed: (reason) => o.log('error', `replica ${index}`, `could not be restarted: ${reason}`),
    deadlines: { scale: config.engineTimeoutScale },
  });
}

/** Starts the replicas (if any), syncs them to the trainer's weights and returns the gate calls go through. */
export async function startPlacement(
  config: PlacementConfig,
  trainer: EngineHost,
  o: PlacementOptions,
): Promise<Placement> {
  const trainerGate = engineGate(trainer, config);
  if (config.rolloutReplicas === 0 && !config.remoteReplicas)
    return { gate: trainerGate, router: null, remote: null, dispose: async () => undefined };
  let router: ReplicaRouter | null = null;
  const hosts = Array.from({ length: config.rolloutReplicas }, (_, i) => replicaHost(config, o, i, () => router));
  const started = await Promise.allSettled(hosts.map((h) => h.start()));
  const failed = started.flatMap((s, i) => (s.status === 'rejected' ? [`replica ${i}: ${String(s.reason)}`] : []));
  if (failed.length > 0) {
    await Promise.allSettled(hosts.map((h) => h.dispose()));
    throw new Error(`rollout replicas failed to start: ${failed.join('; ')}`);
  }
  const now = o.now ?? (() => performance.now());
  const replicas: Replica[] = hosts.map((engine, index) => replicaOf(config, now, index, engine));
  const endpoint = endpointOf(config);
  const sync = new WeightSync({
    trainer,
    ...(endpoint ? { endpoint } : {}),
    timeoutS: config.syncTimeoutS,
    inflight: config.inflight,
    log: (level, message) => o.log(level, 'sync', message),
  });
  router = new ReplicaRouter({
    replicas,
    trainer,
    trainerGate,
    trainerServes: o.load.inferenceCopy !== false,
    sync,
    async: config.async,
    inflight: config.inflight,
    stalenessBound: () => config.training.stalenessBound,
    admitTimeoutMs: (config.syncTimeoutS + 60) * 1000,
    now,
    event: (level, message) => o.log(level, 'rollout', message),
  });
  const live = router;
  trainer.onRecover(() => live.trainerRecovered());
  const remote = config.remoteReplicas ? remoteReplicas(config, trainer, live, o, now) : null;
  const first = await live.syncAll();
  o.log(
    first.failed.length > 0 ? 'error' : 'info',
    'rollout',
    `${replicas.length} rollout replica(s) at weight version ${first.weightVersion} ` +
      `(sync ${first.ms.toFixed(0)} ms, ${(first.bytes / 2 ** 20).toFixed(1)} MiB)` +
      `${first.failed.length > 0 ? `; not synced: ${first.failed.map((f) => f.index).join(', ')}` : ''}` +
      `${config.async ? `; asynchronous, staleness bound ${config.training.stalenessBound}` : ''}` +
      `${remote ? '; replicas from other hosts welcome (agentjet replica)' : ''}`,
  );
  return {
    gate: live,
    router: live,
    remote,
    dispose: async () => {
      await remote?.dispose();
      await Promise.allSettled(hosts.map((h) => h.dispose()));
    },
  };
}

function remoteReplicas(
  config: PlacementConfig,
  trainer: EngineHost,
  router: ReplicaRouter,
  o: PlacementOptions,
  now: () => number,
): RemoteReplicas {
  return new RemoteReplicas({
    router,
    replica: (index, engine, host) => replicaOf(config, now, index, engine, host),
    load: replicaLoad(config, o.load),
    configure: { maxRows: config.maxBatch },
    files: modelFiles(o.load.path),
    trainer,
    syncHost: config.syncHost,
    deadlines: { scale: config.engineTimeoutScale },
    log: o.log,
  });
}
