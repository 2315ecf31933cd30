// Batches writes to the Store: each write is queued and the queue is applied in one SQLite
// transaction at least every `intervalMs` (default 250 ms), so a crash loses at most that much and
// a busy event stream costs one commit per batch, not one per event.
import type { Store } from '../store/types';

export type StoreWrite = (store: Store) => void;

export class WriteBatcher {
  private queue: StoreWrite[] = [];
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly onError: (message: string) => void,
    intervalMs = 250,
    private readonly maxQueued = 5000,
  ) {
    this.timer = setInterval(() => this.flush(), intervalMs);
    this.timer.unref();
  }

  push(write: StoreWrite): void {
    if (this.closed) return;
    this.queue.push(write);
    if (this.queue.length >= this.maxQueued) this.flush();
  }

  /** Applies every queued write in one transaction; a failing write is reported and skipped, the rest commit. */
  flush(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    try {
      this.store.transaction(() => {
        for (const write of batch) {
          try {
            write(this.store);
          } catch (err) {
            this.onError(`store: a write failed: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
      });
    } catch (err) {
      this.onError(
        `store: a batch of ${batch.length} write(s) failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  /** Flushes what is queued and stops the timer. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.timer);
  }
}
