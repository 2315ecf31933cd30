// The durable pool of finished, untrained train episodes. Every change is appended to a JSONL
// journal and fsynced before the caller continues, so an `end` that was answered survives
// `kill -9`. Removals are tagged with the step they belong to: on resume (or an engine restart
// from a checkpoint) removals after the checkpoint's step are undone, because their training
// was lost with the weights — at most the work since the last checkpoint is redone, and no
// accepted episode is lost. A checkpoint compacts the journal to the current entries.
//
// Under I/O failure: an entry joins the pool only once its line is on disk (a failed append is a
// 503 `journal_unavailable` with a retry hint and leaves the pool as it was); a line left torn by
// a failed write is terminated before the next one; a failed compaction removes its temporary
// file and keeps the old journal open and intact. A failed removal is kept in memory (the
// episodes were trained) and reported: a crash before the next checkpoint undoes it anyway.
// The last failure is reported through `health` and `onProblem`.
import { dirname } from 'node:path';
import { z } from 'zod';
import { TimelineSchema, type Timeline } from '../../../src/shared/timeline/index';
import { unavailable, type SwarmError } from '../errors';
import { nodeJournalFs, tempPathFor, type JournalFile, type JournalFs } from './journal-fs';

export const PoolEntrySchema = z.object({
  /** Arrival order, kept across resumes. */
  seq: z.number().int().min(0),
  episodeId: z.string(),
  clientId: z.string(),
  taskId: z.string(),
  reward: z.number(),
  success: z.boolean().optional(),
  metrics: z.record(z.string(), z.number()).optional(),
  endedAt: z.number(),
  /** The client/reward code version that produced the episode (absent for clients that do not say). */
  codeVersion: z.string().optional(),
  /** The role it played (the claim's `role`; REINFORCE's baseline is per role). */
  role: z.string().optional(),
  calls: z.array(TimelineSchema),
});
export type PoolEntry = z.infer<typeof PoolEntrySchema>;

export type RemoveReason = 'trained' | 'zero_variance' | 'stale' | 'no_signal' | 'train_error';

const JournalLineSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), entry: PoolEntrySchema }),
  z.object({ op: z.literal('remove'), ids: z.array(z.string()), reason: z.string(), step: z.number().int() }),
  z.object({ op: z.literal('quarantine'), ids: z.array(z.string()), codeVersion: z.string(), at: z.number() }),
  z.object({ op: z.literal('release'), ids: z.array(z.string()) }),
]);

/** Episodes of one code version held out of the pool (never trained while held; `release` puts them back). */
export interface QuarantinedVersion {
  codeVersion: string;
  episodeIds: string[];
  /** When the last of them was quarantined. */
  at: number;
}

export const oldestWeightVersion = (calls: readonly Timeline[]): number =>
  calls.reduce((m, c) => Math.min(m, c.weightVersion), Number.POSITIVE_INFINITY);

/** The journal's condition: whether its last write succeeded, and the last failure seen. */
export interface JournalHealth {
  ok: boolean;
  lastError: string | null;
  lastErrorAt: number | null;
}

/** Seconds a client is asked to wait after a journal failure. */
const JOURNAL_RETRY_S = 5;

const describe = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);

export class DurablePool {
  private readonly entries = new Map<string, PoolEntry>();
  /** Quarantined entries (journalled; out of `list()`, so never trained), by episode id. */
  private readonly held = new Map<string, { entry: PoolEntry; codeVersion: string; at: number }>();
  /** Entries removed since the last checkpoint, for rollback. */
  private removedSince: { entry: PoolEntry; step: number }[] = [];
  private nextSeq = 0;
  private handle: JournalFile | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /** A write failed part-way: the next line starts on a fresh line. */
  private torn = false;
  private readonly problemListeners = new Set<(message: string) => void>();
  health: JournalHealth = { ok: true, lastError: null, lastErrorAt: null };

  private constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
    private readonly fs: JournalFs,
    private readonly now: () => number,
  ) {}

  /** Opens (replaying) the journal at `path`; removals tagged after `checkpointStep` are undone. */
  static async open(
    path: string,
    checkpointStep: number,
    log: (message: string) => void = () => undefined,
    opts: { fs?: JournalFs; now?: () => number } = {},
  ): Promise<DurablePool> {
    const pool = new DurablePool(path, log, opts.fs ?? nodeJournalFs, opts.now ?? Date.now);
    const text = await pool.fs.readText(path);
    if (text !== null) pool.replay(text, checkpointStep);
    pool.handle = await pool.fs.openAppend(path);
    // Rewrite at once so undone removals and a torn tail do not linger in the file.
    try {
      await pool.compact();
    } catch (err) {
      await pool.dispose();
      throw new Error(`the pool journal ${path} could not be rewritten at start (it is intact): ${describe(err)}`);
    }
    return pool;
  }

  private replay(text: string, checkpointStep: number): void {
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      let parsed: z.infer<typeof JournalLineSchema>;
      try {
        parsed = JournalLineSchema.parse(JSON.parse(line));
      } catch (err) {
        // A torn last line is an `end` that was never answered; anything else is reported.
        const last = lines.slice(i + 1).every((l) => l.trim() === '');
        this.log(
          `pool journal line ${i + 1} ` +
            `${last ? 'is incomplete (crash while writing); ignored' : `is unreadable and skipped: ${describe(err)}`}`,
        );
        return;
      }
      if (parsed.op === 'add') {
        this.entries.set(parsed.entry.episodeId, parsed.entry);
        this.nextSeq = Math.max(this.nextSeq, parsed.entry.seq + 1);
      } else if (parsed.op === 'quarantine') {
        this.hold(parsed.ids, parsed.codeVersion, parsed.at);
      } else if (parsed.op === 'release') {
        this.unhold(parsed.ids);
      } else if (parsed.step <= checkpointStep) {
        for (const id of parsed.ids) this.entries.delete(id);
      }
    });
  }

  get size(): number {
    return this.entries.size;
  }

  has(episodeId: string): boolean {
    return this.entries.has(episodeId);
  }

  /** Entries in arrival order. */
  list(): PoolEntry[] {
    return [...this.entries.values()].sort((a, b) => a.seq - b.seq);
  }

  get(episodeId: string): PoolEntry | undefined {
    return this.entries.get(episodeId);
  }

  /** Called with a description of each journal failure (the worker logs it as an event). */
  onProblem(listener: (message: string) => void): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  /**
   * Adds an entry once its line is on disk; resolves with it then. On an I/O failure the pool is
   * unchanged and the promise rejects with a 503 `journal_unavailable` (retry later).
   */
  add(entry: Omit<PoolEntry, 'seq'>): Promise<PoolEntry> {
    const full: PoolEntry = { ...entry, seq: this.nextSeq++ };
    return this.append({ op: 'add', entry: full }, () => this.entries.set(full.episodeId, full)).then(
      () => full,
      (err: unknown) => {
        throw this.failed(`appending episode ${full.episodeId}`, err);
      },
    );
  }

  /**
   * Removes entries as part of step `step`; resolves once the removal is on disk. An I/O failure
   * is reported, not thrown: the entries stay removed in memory (they were trained).
   */
  remove(ids: readonly string[], reason: RemoveReason, step: number): Promise<PoolEntry[]> {
    const removed: PoolEntry[] = [];
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      this.entries.delete(id);
      this.removedSince.push({ entry, step });
      removed.push(entry);
    }
    if (removed.length === 0) return Promise.resolve(removed);
    return this.append({ op: 'remove', ids: removed.map((e) => e.episodeId), reason, step }).then(
      () => removed,
      (err: unknown) => {
        this.failed(
          `recording the removal of ${removed.length} episode(s) (kept in memory; a crash before the next ` +
            'checkpoint redoes them)',
          err,
        );
        return removed;
      },
    );
  }

  /**
   * Quarantines the pooled episodes of `codeVersion`: once the line is on disk they leave the
   * pool (the trainer never sees them) and are held until `release`. Rejects with a 503 on an
   * I/O failure, the pool unchanged. Resolves with the entries held now.
   */
  quarantine(codeVersion: string): Promise<PoolEntry[]> {
    const ids = this.list()
      .filter((e) => e.codeVersion === codeVersion)
      .map((e) => e.episodeId);
    if (ids.length === 0) return Promise.resolve([]);
    const at = this.now();
    return this.append({ op: 'quarantine', ids, codeVersion, at }, () => this.hold(ids, codeVersion, at)).then(
      () => ids.map((id) => this.held.get(id)?.entry).filter((e): e is PoolEntry => e !== undefined),
      (err: unknown) => {
        throw this.failed(`quarantining ${ids.length} episode(s) of code version ${codeVersion}`, err);
      },
    );
  }

  /** Puts a quarantined version's episodes back into the pool (undo); resolves with them. */
  release(codeVersion: string): Promise<PoolEntry[]> {
    const ids = [...this.held.entries()].filter(([, h]) => h.codeVersion === codeVersion).map(([id]) => id);
    if (ids.length === 0) return Promise.resolve([]);
    const entries = ids.map((id) => this.held.get(id)!.entry);
    return this.append({ op: 'release', ids }, () => this.unhold(ids)).then(
      () => entries,
      (err: unknown) => {
        throw this.failed(`releasing ${ids.length} quarantined episode(s) of code version ${codeVersion}`, err);
      },
    );
  }

  /** The quarantined episodes, by code version. */
  quarantined(): QuarantinedVersion[] {
    const byVersion = new Map<string, QuarantinedVersion>();
    for (const [id, h] of this.held) {
      const v = byVersion.get(h.codeVersion) ?? { codeVersion: h.codeVersion, episodeIds: [], at: h.at };
      v.episodeIds.push(id);
      v.at = Math.max(v.at, h.at);
      byVersion.set(h.codeVersion, v);
    }
    return [...byVersion.values()];
  }

  private hold(ids: readonly string[], codeVersion: string, at: number): void {
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      this.entries.delete(id);
      this.held.set(id, { entry, codeVersion, at });
    }
  }

  private unhold(ids: readonly string[]): void {
    for (const id of ids) {
      const h = this.held.get(id);
      if (!h) continue;
      this.held.delete(id);
      this.entries.set(id, h.entry);
    }
  }

  /** Puts back every entry removed by a step after `step` (their training was lost). */
  rollback(step: number): PoolEntry[] {
    const back = this.removedSince.filter((r) => r.step > step);
    this.removedSince = this.removedSince.filter((r) => r.step <= step);
    for (const { entry } of back) this.entries.set(entry.episodeId, entry);
    return back.map((r) => r.entry);
  }

  /**
   * Rewrites the journal as the current entries only (after a checkpoint made the removals
   * final): a new file, fsynced, renamed over the old one. On failure the temporary file is
   * removed, the old journal stays open and intact, and the promise rejects with a 503.
   */
  compact(): Promise<void> {
    return this.enqueue(async () => {
      const held = [...this.held.values()].map((h) => h.entry);
      const text = [...this.list(), ...held]
        .map((entry) => `${JSON.stringify({ op: 'add', entry })}\n`)
        .concat(
          this.quarantined().map(
            (q) => `${JSON.stringify({ op: 'quarantine', ids: q.episodeIds, codeVersion: q.codeVersion, at: q.at })}\n`,
          ),
        )
        .join('');
      const tmp = tempPathFor(this.path);
      let next: JournalFile | null = null;
      try {
        next = await this.fs.create(tmp);
        await next.append(text);
        await next.sync();
        await this.fs.rename(tmp, this.path);
      } catch (err) {
        await next?.close().catch(() => undefined);
        await this.fs.unlink(tmp).catch(() => undefined);
        throw this.failed('compacting the journal (the old journal is kept and still used)', err);
      }
      // The new handle is the renamed file: appends go on into it.
      const old = this.handle;
      this.handle = next;
      this.torn = false;
      this.removedSince = [];
      this.succeeded();
      await old?.close().catch(() => undefined);
      await this.fs.syncDir(dirname(this.path));
    });
  }

  async dispose(): Promise<void> {
    await this.enqueue(async () => {
      await this.handle?.close().catch(() => undefined);
      this.handle = null;
    });
  }

  /** Appends a line and syncs it; `onDurable` runs once it is on disk, before anything queued after. */
  private append(line: z.infer<typeof JournalLineSchema>, onDurable?: () => void): Promise<void> {
    const text = `${JSON.stringify(line)}\n`;
    return this.enqueue(async () => {
      if (!this.handle) throw new Error('the pool journal is closed');
      try {
        await this.handle.append(this.torn ? `\n${text}` : text);
        await this.handle.sync();
      } catch (err) {
        this.torn = true;
        throw err;
      }
      this.torn = false;
      this.succeeded();
      onDurable?.();
    });
  }

  private succeeded(): void {
    if (!this.health.ok) this.health = { ...this.health, ok: true };
  }

  /** Records a failure (health, log, listeners) and returns the 503 a client gets for it. */
  private failed(what: string, err: unknown): SwarmError {
    const message = `pool journal: ${what} failed: ${describe(err)}`;
    this.health = { ok: false, lastError: message, lastErrorAt: this.now() };
    if (this.problemListeners.size === 0) this.log(message);
    for (const listener of this.problemListeners) listener(message);
    return unavailable(
      'journal_unavailable',
      `the pool journal could not be written (${describe(err)}); nothing was lost or changed — retry shortly`,
      JOURNAL_RETRY_S,
    );
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.chain.then(task);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
