// Admin calls the campaign runner makes to a worker (config, reset, start/pause, episode lists):
// JSON in, the answer parsed with a schema, errors carrying the worker's {type, code, message}.
import { z } from 'zod';
import { ErrorBodySchema } from '../../shared/swarm-protocol';

export class WorkerCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerCallError';
  }
}

export async function adminCall<T extends z.ZodType>(
  url: string,
  token: string,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body: unknown,
  schema: T,
  timeoutMs = 30_000,
): Promise<z.output<T>> {
  let res: Response;
  try {
    res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && method !== 'GET' ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined && method !== 'GET' ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new WorkerCallError(
      0,
      'unreachable',
      `${method} ${url}${path}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const text = await res.text();
  let raw: unknown = null;
  try {
    raw = JSON.parse(text);
  } catch {
    // not JSON: reported below
  }
  if (!res.ok) {
    const e = ErrorBodySchema.safeParse(raw);
    throw new WorkerCallError(
      res.status,
      e.success ? e.data.error.code : 'http_error',
      `${method} ${path}: HTTP ${res.status} ${e.success ? e.data.error.message : text.slice(0, 300)}`,
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new WorkerCallError(
      res.status,
      'bad_answer',
      `${method} ${path}: unexpected answer (${parsed.error.issues[0]?.message ?? 'invalid'})`,
    );
  return parsed.data;
}
