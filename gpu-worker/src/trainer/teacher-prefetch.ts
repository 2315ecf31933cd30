// On-policy distillation's teacher, scoring ahead (docs/learned-rewards.md, "On-policy distillation"):
// the trainer hands it each task group's samples as soon as the group is complete in the pool
// (`prefetch`), so the teacher's forward pass runs while the student goes on generating instead of
// inside the update, where generation waits for it. The teacher is frozen, so a sequence's logprobs
// never go stale: the update's `score` takes what was scored ahead (waiting for a request still in
// flight) and asks the teacher only for the rest. A prefetch that failed is simply asked again; one
// nobody consumed is evicted, oldest first, past `maxEntries` sequences.
import { createHash } from 'node:crypto';
import type { LogprobsSequence } from '../../../src/shared/engine-protocol';
import type { PrefetchFigures, Teacher, TeacherScores } from './teacher';

/** A sequence's identity for the teacher: its tokens and, for a prefix tree, its layout. */
export function sequenceKey(s: LogprobsSequence): string {
  const h = createHash('sha256');
  h.update(Int32Array.from(s.tokenIds));
  if (s.parents) h.update('|p').update(Int32Array.from(s.parents));
  if (s.positions) h.update('|q').update(Int32Array.from(s.positions));
  return h.digest('base64');
}

export class PrefetchingTeacher implements Teacher {
  private readonly ahead = new Map<string, Promise<TeacherScores | null>>();
  private figures: PrefetchFigures = { sequences: 0, prefetched: 0 };

  constructor(
    private readonly inner: Teacher,
    private readonly maxEntries = 4096,
  ) {}

  get url(): string {
    return this.inner.url;
  }

  get topK(): number {
    return this.inner.topK;
  }

  /** Sequences held (scored or in flight). */
  get size(): number {
    return this.ahead.size;
  }

  /** Starts scoring these sequences now (those not already held); never throws. */
  prefetch(sequences: readonly LogprobsSequence[]): void {
    const todo = new Map<string, LogprobsSequence>();
    for (const s of sequences) {
      const key = sequenceKey(s);
      if (!this.ahead.has(key)) todo.set(key, s);
    }
    if (todo.size === 0) return;
    const scored = this.inner.score([...todo.values()]).then(
      (rows) => rows,
      () => null, // asked again by the update
    );
    [...todo.keys()].forEach((key, i) => {
      this.ahead.set(
        key,
        scored.then((rows) => rows?.[i] ?? null),
      );
    });
    for (const key of this.ahead.keys()) {
      if (this.ahead.size <= this.maxEntries) break;
      this.ahead.delete(key);
    }
  }

  async score(sequences: readonly LogprobsSequence[]): Promise<TeacherScores[]> {
    const keys = sequences.map(sequenceKey);
    const held = await Promise.all(keys.map((k) => this.ahead.get(k) ?? Promise.resolve(null)));
    for (const k of keys) this.ahead.delete(k); // an update trains a group once
    const missing = held.flatMap((row, i) => (row === null ? [i] : []));
    const asked = missing.length > 0 ? await this.inner.score(missing.map((i) => sequences[i]!)) : [];
    const out = held.slice();
    missing.forEach((i, k) => (out[i] = asked[k]!));
    this.figures.sequences += sequences.length;
    this.figures.prefetched += sequences.length - missing.length;
    return out.map((row) => row!);
  }

  /** The figures since the last call (then reset). */
  takeFigures(): PrefetchFigures {
    const f = this.figures;
    this.figures = { sequences: 0, prefetched: 0 };
    return f;
  }
}
