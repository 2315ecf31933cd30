// Errors as values at process boundaries: the `{type, code, message}` shape (STYLE habit 5).
import { z } from 'zod';

export const WireErrorSchema = z.object({
  type: z.string(),
  code: z.string(),
  message: z.string(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

/** An Error that carries a wire error's fields, for throwing on the receiving side. */
export class RemoteError extends Error {
  readonly type: string;
  readonly code: string;
  constructor(err: WireError) {
    super(err.message);
    this.name = 'RemoteError';
    this.type = err.type;
    this.code = err.code;
  }
}

/** Converts anything thrown into a wire error, never leaking a raw Error object across a process. */
export function toWireError(err: unknown, type = 'internal', code = 'internal'): WireError {
  if (err instanceof RemoteError) return { type: err.type, code: err.code, message: err.message };
  if (err instanceof Error) return { type, code, message: err.message };
  return { type, code, message: String(err) };
}
