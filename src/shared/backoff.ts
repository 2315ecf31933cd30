// The one exponential backoff: the delay before attempt `attempt` (0-based) of a run of failures,
// growing by `factor` from `initialMs` up to `maxMs`, optionally jittered within a fraction of
// itself, and when a run of failures starts over. Used by the client runner's restarts, the
// engine's restarts, the SDK's retries, the events feed's and the bridge socket's reconnects. Pure.

export interface BackoffPolicy {
  /** Delay of attempt 0. */
  initialMs: number;
  /** Upper bound of the delay before jitter (Infinity: none). */
  maxMs: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Attempts beyond this count as this one (default 30; keeps the power finite). */
  maxExponent?: number;
  /** The delay is scaled by `lo + (hi − lo) · random` (default [1, 1]: no jitter). */
  jitter?: readonly [lo: number, hi: number];
  /** A process that stayed up at least this long before failing starts over at attempt 0. */
  resetAfterMs?: number;
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** The delay before attempt `attempt`; `random` in [0, 1] picks within the jitter range. */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random = 1): number {
  const n = clamp(Number.isFinite(attempt) ? Math.floor(attempt) : 0, 0, policy.maxExponent ?? 30);
  const exp = Math.min(policy.maxMs, policy.initialMs * (policy.factor ?? 2) ** n);
  const [lo, hi] = policy.jitter ?? [1, 1];
  return exp * (lo + (hi - lo) * clamp(random, 0, 1));
}

/** The attempt index of the next restart, given how long the failed process had been up. */
export function attemptAfterCrash(previousAttempt: number, uptimeMs: number, policy: BackoffPolicy): number {
  return policy.resetAfterMs !== undefined && uptimeMs >= policy.resetAfterMs ? 0 : previousAttempt;
}
