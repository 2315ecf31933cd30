// Exponential backoff with jitter (the shared backoff), honouring a server's Retry-After, bounded by an overall
// deadline.
import { backoffDelay } from '../shared/backoff';

export interface RetryOptions {
  /** Give up retrying after this long overall (default 120 s). */
  deadlineMs?: number;
  /** First wait (default 200 ms); doubles each attempt. */
  initialDelayMs?: number;
  /** Longest single wait, Retry-After included (default 10 s). */
  maxDelayMs?: number;
}

export const RETRY_DEFAULTS: Required<RetryOptions> = { deadlineMs: 120_000, initialDelayMs: 200, maxDelayMs: 10_000 };

/** The wait before attempt `attempt + 1` (attempt counts from 0). */
export function backoffMs(
  attempt: number,
  retryAfterS: number | undefined,
  o: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const jittered = backoffDelay(
    attempt,
    { initialMs: o.initialDelayMs, maxMs: Infinity, maxExponent: 20, jitter: [0.75, 1.25] },
    random(),
  );
  const wanted = retryAfterS !== undefined ? Math.max(retryAfterS * 1000, jittered) : jittered;
  return Math.min(wanted, o.maxDelayMs);
}

/** Resolves after `ms`, or rejects with the signal's reason when it fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
