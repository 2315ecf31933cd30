// Waiters woken together when something they wait for may have changed, each with its own deadline.
// Each waiter re-checks its own condition when woken (and waits again if it still does not hold), so
// one wake serves every kind of waiter. Bounded in time (each wait) and optionally in count (a wait
// over the cap gives up at once), so a long wait or a flood of waiters costs nothing but timers.
// Used by the worker's claim hold during updates (swarm.ts) and the rollout-replica router.

/** Why a wait ended: woken, out of time, its signal fired, or no room (over the cap). */
export type WaitOutcome = 'woken' | 'timeout' | 'aborted' | 'full';

export class Waiters {
  private readonly waiting = new Set<() => void>();

  constructor(private readonly cap = Number.POSITIVE_INFINITY) {}

  get size(): number {
    return this.waiting.size;
  }

  /** Waits up to `ms` for the next `wake`; nothing stays registered once it has settled. */
  wait(ms: number, signal?: AbortSignal): Promise<WaitOutcome> {
    if (signal?.aborted) return Promise.resolve('aborted');
    if (ms <= 0) return Promise.resolve('timeout');
    if (this.waiting.size >= this.cap) return Promise.resolve('full');
    return new Promise((resolve) => {
      const done = (outcome: WaitOutcome): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(onWake);
        resolve(outcome);
      };
      const onWake = (): void => done('woken');
      const onAbort = (): void => done('aborted');
      const timer = setTimeout(() => done('timeout'), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.add(onWake);
    });
  }

  /** Wakes every waiter (each re-checks what it waits for). */
  wake(): void {
    for (const w of [...this.waiting]) w();
  }
}
