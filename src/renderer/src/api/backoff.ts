// Reconnect delays for the bridge socket: exponential with full jitter, capped.

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 10_000 };

/** Delay before reconnect attempt `attempt` (0-based); `random` in [0, 1) picks within the upper half of the window. */
export function backoffDelay(attempt: number, random: number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, Math.min(attempt, 30)));
  const r = Math.min(Math.max(random, 0), 1);
  return Math.round(exp / 2 + (exp / 2) * r);
}
