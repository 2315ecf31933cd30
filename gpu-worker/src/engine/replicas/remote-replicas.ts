// Rollout replicas on other hosts (issue #21 §2: a second box adds replicas; --remote-replicas). An
// `agentjet replica` host dials the worker once per replica engine (server/replica-attach.ts checks
// the replica or admin token, the name and the model's identity files before the upgrade); each name gets a
// supervisor (EngineHost over a RemoteSlot, whose engines are the sockets attached under that name),
// and once its first start loaded the model it joins the ReplicaRouter like a local replica: routed
// to, synced after every update (joining the trainer's store at the address its host reaches), in the
// status with its `host`. A socket that drops is a replica that died: its calls fail with a 503, its
// supervisor waits for the host to dial in again, and the sync brings it to the current weights before
// it takes calls. Training never waits for it.
import type { ConfigureParams, EngineInfo, LoadParams } from '../../../../src/shared/engine-protocol';
import { MAX_REMOTE_REPLICAS, MODEL_FILES_HEADER, REPLICA_NAME } from '../../../../src/shared/replica-attach';
import type WebSocket from 'ws';
import { badRequest, conflict, unavailable, type SwarmError } from '../../errors';
import type { EngineDeadlines } from '../engine-deadlines';
import { EngineHost } from '../engine-host';
import { modelFilesMismatch, parseModelFiles, type ModelFiles } from './model-files';
import { RemoteSlot } from './remote-slot';
import type { Replica, ReplicaRouter } from './replica-router';

/** What remote replicas need of the router: to join it, and to say when their engines come and go. */
export type RemoteRouter = Pick<ReplicaRouter, 'replicas' | 'addReplica' | 'replicaUp' | 'replicaDown'>;

export interface RemoteReplicasOptions {
  router: RemoteRouter;
  /** A replica's gate, clocks and counters around its engine (placement.ts, as for a local one). */
  replica: (index: number, engine: EngineHost, host: string) => Replica;
  /** The replicas' load params (their host puts in its own model path, threads and device). */
  load: LoadParams;
  configure: ConfigureParams;
  /** The trainer's model identity files (model-files.ts). */
  files: ModelFiles;
  trainer: { readonly info: EngineInfo | null };
  /** --sync-host: where replica hosts reach the trainer's store (default: the host name they dialled). */
  syncHost?: string | undefined;
  deadlines?: Partial<EngineDeadlines> | undefined;
  startTimeoutMs?: number;
  log: (level: 'info' | 'error', source: string, message: string) => void;
}

/** Why a replica's loaded engine cannot serve for the trainer (null: it can). */
export function engineMismatch(trainer: EngineInfo | null, replica: EngineInfo | null): string | null {
  if (!trainer || !replica) return null;
  const facts = ['vocabSize', 'contextLength', 'padTokenId'] as const;
  const differ = facts.filter((k) => trainer[k] !== replica[k]).map((k) => `${k} ${replica[k]} ≠ ${trainer[k]}`);
  if (trainer.eosTokenIds.join(',') !== replica.eosTokenIds.join(',')) differ.push('its end-of-sequence tokens');
  return differ.length > 0
    ? `the replica's engine loaded another model than the trainer's (${differ.join(', ')})`
    : null;
}

/** The host part of a Host header (`gpu-box:8321`, `[::1]:8321`), or null. */
export function hostOfHeader(header: string | undefined): string | null {
  if (!header) return null;
  try {
    const host = new URL(`http://${header}`).hostname.replace(/^\[|\]$/g, '');
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

export class RemoteReplicas {
  private readonly slots = new Map<string, RemoteSlot>();
  private disposed = false;

  constructor(private readonly o: RemoteReplicasOptions) {}

  /** Why an attach is refused before the upgrade (null: it is taken). */
  refusal(name: string | null, filesHeader: string | undefined): SwarmError | null {
    if (this.disposed) return unavailable('worker_stopping', 'the worker is stopping', 30);
    if (name === null || !REPLICA_NAME.test(name))
      return badRequest('bad_replica_name', 'name the replica `?name=<host>/<index>` (letters, digits, `._:-`)');
    if (!this.slots.has(name) && this.slots.size >= MAX_REMOTE_REPLICAS)
      return conflict('too_many_replicas', `this worker takes at most ${MAX_REMOTE_REPLICAS} remote rollout replicas`);
    const files = filesHeader === undefined ? null : parseModelFiles(filesHeader);
    if (files === null)
      return badRequest('bad_model_files', `send the model's identity files (${MODEL_FILES_HEADER}: name=sha256;…)`);
    const mismatch = modelFilesMismatch(this.o.files, files);
    return mismatch ? conflict('model_mismatch', mismatch) : null;
  }

  /** Where a replica that dialled the worker as `hostHeader` reaches the trainer's store. */
  storeHostFor(hostHeader: string | undefined): string {
    return this.o.syncHost ?? hostOfHeader(hostHeader) ?? '127.0.0.1';
  }

  /** A socket that passed `refusal`: a new replica, or the next engine of a known one. */
  attach(name: string, ws: WebSocket, storeHost: string): void {
    const known = this.slots.get(name);
    if (known) {
      this.o.log('info', 'rollout', `rollout replica ${name} reconnected`);
      return known.offer({ ws, storeHost });
    }
    const slot = new RemoteSlot(
      name,
      { ws, storeHost },
      { startTimeoutMs: this.o.startTimeoutMs, deadlines: this.o.deadlines, log: (m) => this.o.log('error', name, m) },
    );
    this.slots.set(name, slot);
    void this.first(slot);
  }

  private supervisor(slot: RemoteSlot): EngineHost {
    const router = this.o.router;
    return new EngineHost({
      factory: slot.factory,
      load: this.o.load,
      configure: this.o.configure,
      checkpoint: () => null, // its weights come from the trainer's sync
      onLog: (line) => this.o.log('info', `replica ${slot.name}`, line),
      onCrash: (reason) => router.replicaDown(slot.index, reason),
      onRecovered: () => router.replicaUp(slot.index),
      restartAttempts: Number.POSITIVE_INFINITY, // each attempt waits for its host to dial in again
      backoffMs: 200,
      backoffMaxMs: 5_000,
      deadlines: this.o.deadlines,
    });
  }

  /** The first start of a new name: its engine loads the model, then the replica joins the router. */
  private async first(slot: RemoteSlot): Promise<void> {
    const host = this.supervisor(slot);
    slot.host = host;
    for (;;) {
      try {
        await host.start();
        break;
      } catch (err) {
        if (!this.disposed && slot.pending) continue; // its host dialled in again meanwhile
        this.o.log('error', 'rollout', `rollout replica ${slot.name} could not start: ${String(err)}`);
        return this.drop(slot);
      }
    }
    const problem = engineMismatch(this.o.trainer.info, host.info);
    if (problem || this.disposed) {
      if (problem) this.o.log('error', 'rollout', `rollout replica ${slot.name} refused: ${problem}`);
      slot.refuse(problem ?? 'the worker is stopping');
      return this.drop(slot);
    }
    const index = this.o.router.replicas.length;
    const replica = this.o.replica(index, host, slot.name);
    replica.storeHost = slot.storeHost;
    slot.target = replica;
    slot.index = index;
    this.o.router.addReplica(replica);
    this.o.log('info', 'rollout', `rollout replica ${index} attached from ${slot.name} (store at ${slot.storeHost})`);
    this.o.router.replicaUp(index);
  }

  private async drop(slot: RemoteSlot): Promise<void> {
    this.slots.delete(slot.name);
    slot.close();
    await slot.host?.dispose();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const slots = [...this.slots.values()];
    for (const s of slots) s.close();
    await Promise.allSettled(slots.map((s) => s.host?.dispose()));
  }
}
