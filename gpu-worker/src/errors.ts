// Errors the swarm services raise for a client: each carries its HTTP status and the wire error
// `{type, code, message}` (plus a retry hint for 503s), so routes never invent their own shapes.
import { SwarmError } from '../../src/shared/swarm-error';
import { ErrorTypes } from '../../src/shared/swarm-protocol';

export { SwarmError };

export const badRequest = (code: string, message: string): SwarmError =>
  new SwarmError(400, ErrorTypes.invalid, code, message);
export const unauthorized = (code: string, message: string): SwarmError =>
  new SwarmError(401, ErrorTypes.auth, code, message);
export const forbidden = (code: string, message: string): SwarmError =>
  new SwarmError(403, ErrorTypes.auth, code, message);
export const notFound = (code: string, message: string): SwarmError =>
  new SwarmError(404, ErrorTypes.notFound, code, message);
export const conflict = (code: string, message: string): SwarmError =>
  new SwarmError(409, ErrorTypes.conflict, code, message);
export const unavailable = (code: string, message: string, retryAfterS: number): SwarmError =>
  new SwarmError(503, ErrorTypes.unavailable, code, message, Math.max(1, Math.ceil(retryAfterS)));
/** An upstream (the engine) did not answer in time; retrying may succeed. */
export const gatewayTimeout = (code: string, message: string): SwarmError =>
  new SwarmError(504, ErrorTypes.unavailable, code, message);
/** The route wants another protocol than the request used (a WebSocket upgrade). */
export const upgradeRequired = (code: string, message: string): SwarmError =>
  new SwarmError(426, ErrorTypes.invalid, code, message);
export const internalError = (message: string): SwarmError =>
  new SwarmError(500, ErrorTypes.internal, 'internal', message);
/** Anything thrown, as the error a client gets (a SwarmError as is, the rest as a 500). */
export const asSwarmError = (err: unknown): SwarmError =>
  err instanceof SwarmError ? err : internalError(err instanceof Error ? err.message : String(err));
/** The client closed the request before it was answered (nginx's 499; nobody reads the answer). */
export const clientClosed = (): SwarmError =>
  new SwarmError(499, ErrorTypes.invalid, 'client_closed_request', 'the client closed the request');
