// Claims that arrive during a synchronous update wait for it to end instead of being refused.
// A refused claim retries after a jittered backoff; with updates back to back, the gap between
// two updates is a few milliseconds, so a client's retries can keep landing inside updates
// (one client was refused 14 times in 117 s and its episodes failed). A held claim is answered
// the moment the state changes, before the trainer can start the next update (the state-change
// release runs in the same turn; the next update waits for a setImmediate). The hold is bounded
// in time (then the claim gets the usual 503 with a retry hint) and in count (claims over the
// bound are refused at once), so a long update or a flood of claims costs nothing but timers.

/** How long a claim waits for an update to end before it is refused (well under the SDKs' 60 s request timeout). */
export const CLAIM_HOLD_MS = 30_000;
/** The most claims held at once; more are refused at once. */
export const MAX_HELD_CLAIMS = 1024;

/** Waiters released together on every state change, each with its own timeout. */
export class ClaimHold {
  private readonly waiters = new Set<() => void>();

  constructor(private readonly maxHeld = MAX_HELD_CLAIMS) {}

  get held(): number {
    return this.waiters.size;
  }

  /**
   * Resolves true when `release` is called within `ms`, false when the time runs out, the hold is
   * full, or the signal fires (the caller then decides: refuse, or give up on a gone client).
   */
  wait(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (ms <= 0 || this.waiters.size >= this.maxHeld || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (released: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(onRelease);
        resolve(released);
      };
      const onRelease = (): void => done(true);
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(false), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(onRelease);
    });
  }

  /** Wakes every waiter (each re-checks the state it waits for). */
  release(): void {
    for (const w of [...this.waiters]) w();
  }
}
