// SDK errors: SwarmError carries the server's `{type, code, message}` (or a connection failure),
// and the helpers that decide which failures are worth retrying.
import { SwarmError } from '../shared/swarm-error';
import { ErrorBodySchema } from '../shared/swarm-protocol';

export { SwarmError };

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = 'code' in err ? err.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Turns a fetch rejection (ECONNREFUSED, reset, DNS, timeout) into a retryable SwarmError with status 0. */
export function connectionError(err: unknown, what: string): SwarmError {
  const cause = err instanceof Error && 'cause' in err ? err.cause : undefined;
  const code = codeOf(cause) ?? codeOf(err) ?? 'connection_failed';
  const detail = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
  return new SwarmError(0, 'connection_error', code, `${what}: ${detail}`);
}

/** Parses an error answer; a body that is not the server's error shape still yields a SwarmError. */
export function errorFromResponse(
  status: number,
  text: string,
  retryAfterHeader: string | null,
  what: string,
): SwarmError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ErrorBodySchema.safeParse(json);
  const headerS =
    retryAfterHeader !== null && /^\d+(\.\d+)?$/.test(retryAfterHeader.trim()) ? Number(retryAfterHeader) : undefined;
  if (parsed.success) {
    const e = parsed.data.error;
    return new SwarmError(status, e.type, e.code, `${what}: ${e.message}`, headerS ?? e.retry_after_s);
  }
  return new SwarmError(
    status,
    'http_error',
    `http_${status}`,
    `${what}: HTTP ${status} ${text.slice(0, 200)}`,
    headerS,
  );
}
