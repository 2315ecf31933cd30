// The admission layer over R rollout replicas (issue #21 §1, §3): a GenerationGate like the single
// engine's Admission, so the trainer, the completions path and reset use it unchanged. Each call goes
// to one replica's own Admission gate, chosen by RoutePolicy (same task group / episode → same replica
// while healthy, else least loaded). A replica is *routable* when its engine is ready, it holds synced
// weights, and it is within the staleness bound: trainer version − replica version < K (K = 1 in
// synchronous mode, so a call never samples from weights the trainer has moved past; K = the
// --staleness-bound in --async mode). A call waits for a routable replica — at most `admitTimeoutMs`,
// then a 503 with a retry hint and an event — and with no replica alive at all it falls back to the
// trainer's own engine, so generation never stops for a dead replica.
//
// Updates: `pause()` (an update begins) pauses every replica's gate in synchronous mode (running
// generations finish first) and nothing in --async mode; `resume()` (it ended) starts the weight sync,
// and in synchronous mode the gates reopen once the replicas hold the new weights.
import type { StepServing } from '../../../../src/shared/swarm-protocol';
import type { GateHealth, ReplicaStatus, RolloutStatus } from '../../../../src/shared/rollout-health';
import { Waiters } from '../../../../src/shared/waiters';
import { unavailable } from '../../errors';
import { Admission, AdmissionCancelledError, type AdmissionHooks, type AdmissionRequest } from '../admission';
import type { AdmissionResult, AdmissionStats, GenerationGate } from '../admission';
import { BusyClock, fraction } from '../busy-clock';
import type { EngineHost } from '../engine-host';
import { RoutePolicy } from './route-policy';
import { mergeStepServing, sumStats } from './router-stats';
import type { SyncOutcome, SyncTarget, WeightSync } from './weight-sync';

export interface Replica extends SyncTarget {
  readonly engine: EngineHost;
  readonly gate: Admission;
  readonly busy: BusyClock;
  tokens: number;
  /** Calls it has answered. */
  calls: number;
  /** Its name when it runs on another host (`agentjet replica`, remote-replicas.ts); absent: on this host. */
  readonly host?: string;
}

const label = (r: Replica): string => `rollout replica ${r.index}${r.host ? ` (${r.host})` : ''}`;

export interface RouterOptions {
  replicas: Replica[];
  /** The trainer's engine and its gate (the fallback when no replica is alive). */
  trainer: EngineHost;
  trainerGate: Admission;
  /** false: the trainer keeps no inference copy (FSDP beside replicas), so calls wait for a replica instead. */
  trainerServes?: boolean;
  sync: WeightSync;
  async: boolean;
  inflight: 'swap' | 'finish';
  stalenessBound: () => number;
  admitTimeoutMs: number;
  now?: () => number;
  event?: (level: 'info' | 'error', message: string) => void;
}

export class ReplicaRouter implements GenerationGate {
  private readonly policy = new RoutePolicy();
  private readonly now: () => number;
  /** Calls waiting for a routable replica, woken whenever one may have become routable. */
  private readonly waiters = new Waiters();
  private readonly pausedClock: BusyClock;
  private readonly heldClock: BusyClock;
  private readonly trainerClock: BusyClock;
  private held = 0;
  private counts = { syncs: 0, syncFailures: 0, heldByStaleness: 0, stalenessTimeouts: 0 };
  private lastSync: SyncOutcome | null = null;
  private tokensReadAt: number;

  constructor(private readonly o: RouterOptions) {
    this.now = o.now ?? (() => performance.now());
    const t = this.now();
    this.pausedClock = new BusyClock(t);
    this.heldClock = new BusyClock(t);
    this.trainerClock = new BusyClock(t);
    this.tokensReadAt = t;
  }

  get replicas(): readonly Replica[] {
    return this.o.replicas;
  }

  private bound(): number {
    return this.o.async ? Math.max(1, this.o.stalenessBound()) : 1;
  }

  private alive(r: Replica): boolean {
    return r.engine.status === 'ready' && r.link !== null && r.version >= 0;
  }

  private routable(r: Replica): boolean {
    return this.alive(r) && this.o.trainer.weightVersion - r.version < this.bound();
  }

  /** The replica for a call, the trainer's gate when no replica is alive, or null (wait). */
  private pick(affinity: string | undefined): Admission | Replica | null {
    const loads = this.o.replicas.map((r) => ({ healthy: this.routable(r), load: r.gate.pending }));
    const i = this.policy.choose(loads, affinity);
    if (i !== null) return this.o.replicas[i]!;
    const fallback = this.o.trainerServes !== false && this.o.trainer.status === 'ready';
    if (fallback && !this.o.replicas.some((r) => this.alive(r))) return this.o.trainerGate;
    return null;
  }

  private async route(req: AdmissionRequest, signal: AbortSignal | undefined): Promise<Admission | Replica> {
    const first = this.pick(req.affinity);
    if (first) return first;
    this.held += 1;
    this.counts.heldByStaleness += 1;
    this.heldClock.set(true, this.now());
    const deadline = performance.now() + this.o.admitTimeoutMs;
    try {
      for (;;) {
        const outcome = await this.waiters.wait(deadline - performance.now(), signal);
        if (outcome === 'aborted') throw new AdmissionCancelledError();
        if (outcome !== 'woken') break;
        const got = this.pick(req.affinity);
        if (got) return got;
      }
    } finally {
      this.held -= 1;
      if (this.held === 0) this.heldClock.set(false, this.now());
    }
    this.counts.stalenessTimeouts += 1;
    const why =
      `no rollout replica within the staleness bound (${this.bound()}) became available in ` +
      `${Math.round(this.o.admitTimeoutMs / 1000)}s`;
    this.o.event?.('error', `admission: ${why}`);
    throw unavailable('replicas_unavailable', `${why}; retry shortly`, 5);
  }

  async generate(req: AdmissionRequest, hooks: AdmissionHooks = {}): Promise<AdmissionResult> {
    if (hooks.signal?.aborted) throw new AdmissionCancelledError();
    const target = await this.route(req, hooks.signal);
    if (target instanceof Admission) return target.generate(req, hooks);
    target.busy.set(true, this.now());
    try {
      const out = await target.gate.generate(req, hooks);
      target.tokens += out.tokenIds.length;
      target.calls += 1;
      return out;
    } finally {
      if (target.gate.pending === 0) target.busy.set(false, this.now());
    }
  }

  async pause(): Promise<void> {
    this.trainerClock.set(true, this.now());
    if (this.o.async) return;
    this.pausedClock.set(true, this.now());
    await Promise.all([...this.o.replicas.map((r) => r.gate.pause()), this.o.trainerGate.pause()]);
  }

  resume(): void {
    this.trainerClock.set(false, this.now());
    void this.syncAll().finally(() => {
      if (!this.o.async) {
        for (const r of this.o.replicas) r.gate.resume();
        this.o.trainerGate.resume();
        this.pausedClock.set(false, this.now());
      }
      this.waiters.wake();
    });
  }

  /** Brings every live replica to the trainer's weights (joins the ones without a link first). */
  async syncAll(): Promise<SyncOutcome> {
    const out = await this.o.sync.sync(this.o.replicas);
    this.lastSync = out;
    this.counts.syncs += 1;
    this.counts.syncFailures += out.failed.length;
    this.waiters.wake();
    return out;
  }

  /** A replica joins the router (one on another host that attached): it takes calls once `replicaUp` synced it. */
  addReplica(r: Replica): void {
    if (r.index !== this.o.replicas.length) throw new Error(`replica index ${r.index} is not the next one`);
    this.o.replicas.push(r);
  }

  /** A replica's engine (re)started: join and sync it; until then it takes no calls. */
  replicaUp(index: number): void {
    const r = this.o.replicas[index];
    if (!r) return;
    r.link = null;
    r.version = -1;
    this.o.event?.('info', `${label(r)} is up; syncing it to weight version ${this.o.trainer.weightVersion}`);
    void this.syncAll();
  }

  /** A replica's engine died: its calls fail with the engine (503; clients retry), its keys move on. */
  replicaDown(index: number, reason: string): void {
    const r = this.o.replicas[index];
    if (!r) return;
    r.link = null;
    r.gate.failAll(unavailable('replica_restarting', `${label(r)} is restarting (${reason})`, 2));
    const next = r.host ? 'waiting for its host to reconnect' : 'restarting it';
    this.o.event?.('error', `${label(r)} died (${reason.split('\n')[0]}); ${next}, training goes on`);
    this.waiters.wake();
  }

  /** The trainer restarted from a checkpoint: every link is gone; resync every replica. */
  trainerRecovered(): void {
    this.o.sync.reset(this.o.replicas);
    void this.syncAll();
  }

  failAll(err: Error): void {
    for (const r of this.o.replicas) r.gate.failAll(err);
    this.o.trainerGate.failAll(err);
  }

  get pending(): number {
    return this.o.replicas.reduce((a, r) => a + r.gate.pending, 0) + this.o.trainerGate.pending + this.held;
  }

  stats(): AdmissionStats {
    return { ...sumStats([this.o.trainerGate, ...this.o.replicas.map((r) => r.gate)]), rollout: this.rollout() };
  }

  rollout(): RolloutStatus {
    return {
      replicas: this.replicaStatus(),
      async: this.o.async,
      inflight: this.o.inflight,
      ...this.counts,
      lastSyncMs: this.lastSync?.ms ?? null,
    };
  }

  private replicaStatus(): ReplicaStatus[] {
    const now = this.now();
    const seconds = Math.max(1e-3, (now - this.tokensReadAt) / 1000);
    return this.o.replicas.map((r) => {
      const s = r.gate.stats();
      return {
        index: r.index,
        state: r.engine.status,
        healthy: this.routable(r),
        weightVersion: r.version,
        restarts: r.engine.restarts,
        inFlight: s.inFlight,
        waiting: s.waiting,
        tokensPerS: r.tokens / seconds,
        cacheHitRate: s.engine?.prefixCache?.tokenHitRate ?? 0,
        pid: r.engine.pid ?? null,
        host: r.host ?? null,
        calls: r.calls,
      };
    });
  }

  async stepFigures(): Promise<StepServing | undefined> {
    const parts = await Promise.all(this.o.replicas.map((r) => r.gate.stepFigures()));
    return mergeStepServing(parts.filter((p): p is StepServing => p !== undefined));
  }

  /** Busy fractions and sync time since the previous call (one per step). */
  healthFigures(): GateHealth {
    const now = this.now();
    const seconds = Math.max(1e-3, (now - this.tokensReadAt) / 1000);
    const replicas = this.o.replicas.map((r) => {
      const out = { index: r.index, busyFraction: fraction(r.busy.take(now)), tokensPerS: r.tokens / seconds };
      r.tokens = 0;
      return out;
    });
    this.tokensReadAt = now;
    const paused = fraction(this.pausedClock.take(now));
    const held = fraction(this.heldClock.take(now));
    return {
      genBusyFraction: replicas.reduce((a, r) => a + r.busyFraction, 0) / Math.max(1, replicas.length),
      genIdleWaitFraction: Math.min(1, paused + held),
      trainerBusyFraction: fraction(this.trainerClock.take(now)),
      syncMs: this.lastSync?.ms ?? null,
      replicas,
    };
  }
}
