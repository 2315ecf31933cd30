// Drives the weight sync between the trainer engine and its rollout replicas (engine frames
// `sync_open` / `sync_join` / `sync_push` / `sync_pull`; gpu-worker/engine/agentjet_engine/engine_sync.py).
// The trainer hosts the rendezvous store; each replica (re)joins a link of its own, `r<index>.g<n>`, n
// counting its (re)starts, so a dead replica breaks only its link. A sync has the trainer push to every
// joined link while each of those replicas pulls; a replica whose pull or link fails is marked unsynced
// (its engine restarts it, or the next sync re-joins it). Syncs run one at a time, the latest version
// wins. Every call carries a deadline (the --sync-timeout), so no sync waits forever. A replica on another
// host joins the same way, at the store address it can reach (`storeHost`: --sync-host, else the host
// name it dialled the worker by).
import type { EngineCaller } from '../engine-caller';

export interface SyncTarget {
  readonly index: number;
  readonly engine: EngineCaller & { readonly status: string };
  /** The link it is joined on, or null (not joined, or its link failed). */
  link: string | null;
  /** Links made for it so far (the next name's counter). */
  joins: number;
  /** The weight version its weights are at, or -1 before its first sync. */
  version: number;
  /** The address it reaches the trainer's store at (a replica on another host); absent: the store's own. */
  storeHost?: string | undefined;
}

export interface SyncOutcome {
  weightVersion: number;
  /** Wall time of the whole sync (push and pulls), ms. */
  ms: number;
  bytes: number;
  synced: number[];
  failed: { index: number; message: string }[];
}

export interface WeightSyncOptions {
  trainer: EngineCaller & { readonly weightVersion: number };
  /** Where the store listens (a replica on another host reaches it there). */
  endpoint?: { host: string; port: number };
  timeoutS: number;
  inflight: 'swap' | 'finish';
  log: (level: 'info' | 'error', message: string) => void;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class WeightSync {
  private store: { host: string; port: number } | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: WeightSyncOptions) {}

  private get deadlineMs(): number {
    return (this.o.timeoutS + 30) * 1000;
  }

  /** The trainer (re)started: its store and every link are gone. */
  reset(targets: readonly SyncTarget[]): void {
    this.store = null;
    for (const t of targets) t.link = null;
  }

  /** Runs `fn` after every sync queued before it (syncs and joins never overlap on the trainer). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async open(): Promise<{ host: string; port: number }> {
    if (this.store) return this.store;
    const want = this.o.endpoint ?? { host: '127.0.0.1', port: 0 };
    const opened = await this.o.trainer.call(
      'sync_open',
      { host: want.host, port: want.port, timeoutS: this.o.timeoutS },
      { deadlineMs: this.deadlineMs },
    );
    this.store = { host: want.host === '0.0.0.0' ? '127.0.0.1' : want.host, port: opened.port };
    return this.store;
  }

  private async join(t: SyncTarget): Promise<void> {
    const store = await this.open();
    t.joins += 1;
    const link = `r${t.index}.g${t.joins}`;
    const timeoutS = this.o.timeoutS;
    const opts = { deadlineMs: this.deadlineMs };
    await Promise.all([
      this.o.trainer.call('sync_join', { link, rank: 0, timeoutS }, opts),
      t.engine.call('sync_join', { link, rank: 1, host: t.storeHost ?? store.host, port: store.port, timeoutS }, opts),
    ]);
    t.link = link;
  }

  /** Brings every ready target to the trainer's weights: joins those without a link, then one push. */
  sync(targets: readonly SyncTarget[]): Promise<SyncOutcome> {
    return this.serial(() => this.syncNow(targets));
  }

  private async syncNow(targets: readonly SyncTarget[]): Promise<SyncOutcome> {
    const t0 = performance.now();
    const failed: SyncOutcome['failed'] = [];
    const ready = targets.filter((t) => t.engine.status === 'ready');
    for (const t of ready.filter((x) => x.link === null)) {
      await this.join(t).catch((err: unknown) => {
        t.link = null;
        failed.push({ index: t.index, message: `join: ${message(err)}` });
      });
    }
    const linked = ready.filter((t) => t.link !== null);
    const version = this.o.trainer.weightVersion;
    if (linked.length === 0)
      return { weightVersion: version, ms: performance.now() - t0, bytes: 0, synced: [], failed };
    const opts = { deadlineMs: this.deadlineMs };
    const pulls = linked.map((t) =>
      t.engine.call('sync_pull', { link: t.link!, inflight: this.o.inflight }, opts).then(
        (r) => ({ t, version: r.weightVersion, error: null }),
        (err: unknown) => ({ t, version: -1, error: message(err) }),
      ),
    );
    const pushed = await this.o.trainer
      .call('sync_push', { links: linked.map((t) => t.link!) }, opts)
      .catch((err: unknown) => ({ error: message(err) }));
    const pulled = await Promise.all(pulls);
    const synced: number[] = [];
    for (const p of pulled) {
      if (p.error === null) {
        p.t.version = p.version;
        synced.push(p.t.index);
      } else {
        p.t.link = null;
        failed.push({ index: p.t.index, message: p.error });
      }
    }
    if ('error' in pushed) this.o.log('error', `weight sync: the trainer's push failed: ${pushed.error}`);
    const bytes = 'error' in pushed ? 0 : pushed.pushed.reduce((a, p) => a + p.bytes, 0);
    for (const f of failed) this.o.log('error', `weight sync to replica ${f.index} failed: ${f.message}`);
    return { weightVersion: version, ms: performance.now() - t0, bytes, synced, failed };
  }
}
