// Restart backoff for crashed clients, as pure functions: the delay for an attempt, and when a
// client has stayed up long enough for its attempt counter to start over.

export interface BackoffPolicy {
  /** Delay before the first restart. */
  initialMs: number;
  /** Growth per consecutive crash. */
  factor: number;
  /** Upper bound of the delay. */
  maxMs: number;
  /** A client that ran at least this long before crashing starts again from `initialMs`. */
  resetAfterMs: number;
}

export const defaultBackoff: BackoffPolicy = { initialMs: 250, factor: 2, maxMs: 10_000, resetAfterMs: 10_000 };

/** Delay before restart number `attempt` (0-based) of a run of consecutive crashes. */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy): number {
  const n = Math.max(0, Math.floor(attempt));
  return Math.min(policy.maxMs, policy.initialMs * policy.factor ** n);
}

/** The attempt index to use for the next restart, given how long the crashed process had been up. */
export function attemptAfterCrash(previousAttempt: number, uptimeMs: number, policy: BackoffPolicy): number {
  return uptimeMs >= policy.resetAfterMs ? 0 : previousAttempt;
}
