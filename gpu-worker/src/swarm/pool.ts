// The durable pool of finished, untrained train episodes. Every change is appended to a JSONL
// journal and fsynced before the caller continues, so an `end` that was answered survives
// `kill -9`. Removals are tagged with the step they belong to: on resume (or an engine restart
// from a checkpoint) removals after the checkpoint's step are undone, because their training
// was lost with the weights — at most the work since the last checkpoint is redone, and no
// accepted episode is lost. A checkpoint compacts the journal to the current entries.
import { existsSync, readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { TimelineSchema, type Timeline } from '../../../src/shared/timeline/index';
import { writeFileAtomic } from './run-dir';

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
  calls: z.array(TimelineSchema),
});
export type PoolEntry = z.infer<typeof PoolEntrySchema>;

export type RemoveReason = 'trained' | 'zero_variance' | 'stale' | 'no_signal' | 'train_error';

const JournalLineSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), entry: PoolEntrySchema }),
  z.object({ op: z.literal('remove'), ids: z.array(z.string()), reason: z.string(), step: z.number().int() }),
]);

export const oldestWeightVersion = (calls: readonly Timeline[]): number => calls.reduce((m, c) => Math.min(m, c.weightVersion), Number.POSITIVE_INFINITY);

export class DurablePool {
  private readonly entries = new Map<string, PoolEntry>();
  /** Entries removed since the last checkpoint, for rollback. */
  private removedSince: { entry: PoolEntry; step: number }[] = [];
  private nextSeq = 0;
  private handle: FileHandle | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Opens (replaying) the journal at `path`; removals tagged after `checkpointStep` are undone. */
  static async open(path: string, checkpointStep: number, log: (message: string) => void = () => undefined): Promise<DurablePool> {
    const pool = new DurablePool(path, log);
    if (existsSync(path)) pool.replay(readFileSync(path, 'utf8'), checkpointStep);
    pool.handle = await open(path, 'a', 0o600);
    // Rewrite at once so undone removals and a torn tail do not linger in the file.
    await pool.compact();
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
        this.log(`pool journal line ${i + 1} ${last ? 'is incomplete (crash while writing); ignored' : `is unreadable and skipped: ${err instanceof Error ? err.message : String(err)}`}`);
        return;
      }
      if (parsed.op === 'add') {
        this.entries.set(parsed.entry.episodeId, parsed.entry);
        this.nextSeq = Math.max(this.nextSeq, parsed.entry.seq + 1);
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

  /** Adds an entry; resolves once it is on disk. */
  add(entry: Omit<PoolEntry, 'seq'>): Promise<PoolEntry> {
    const full: PoolEntry = { ...entry, seq: this.nextSeq++ };
    this.entries.set(full.episodeId, full);
    return this.append({ op: 'add', entry: full }).then(() => full);
  }

  /** Removes entries as part of step `step`; resolves once the removal is on disk. */
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
    return this.append({ op: 'remove', ids: removed.map((e) => e.episodeId), reason, step }).then(() => removed);
  }

  /** Puts back every entry removed by a step after `step` (their training was lost). */
  rollback(step: number): PoolEntry[] {
    const back = this.removedSince.filter((r) => r.step > step);
    this.removedSince = this.removedSince.filter((r) => r.step <= step);
    for (const { entry } of back) this.entries.set(entry.episodeId, entry);
    return back.map((r) => r.entry);
  }

  /** Rewrites the journal as the current entries only (after a checkpoint made the removals final). */
  compact(): Promise<void> {
    return this.enqueue(async () => {
      const text = this.list().map((entry) => `${JSON.stringify({ op: 'add', entry })}\n`).join('');
      await this.handle?.close();
      writeFileAtomic(this.path, text, 0o600);
      this.handle = await open(this.path, 'a', 0o600);
      this.removedSince = [];
    });
  }

  async dispose(): Promise<void> {
    await this.enqueue(async () => {
      await this.handle?.close();
      this.handle = null;
    });
  }

  private append(line: z.infer<typeof JournalLineSchema>): Promise<void> {
    const text = `${JSON.stringify(line)}\n`;
    return this.enqueue(async () => {
      if (!this.handle) throw new Error('the pool journal is closed');
      await this.handle.write(text);
      await this.handle.datasync();
    });
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.chain.then(task);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
