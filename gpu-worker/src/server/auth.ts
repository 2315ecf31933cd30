// Who is calling: the bearer credential (or x-api-key) of a request checked against the admin and join tokens
// (constant time) or read as a signed episode key. Credentials are never logged or echoed.
// `installEarlyAuth` refuses a request without a valid credential in Fastify's first hook
// (`onRequest`), before its body is read, so nobody without one can make the server buffer a body.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { bearerToken, keyRefusal, type KeyCheck, type Role, type TokenMatcher } from '../swarm/keys';
import { forbidden, SwarmError, unauthorized } from '../errors';
import { workerRoutes } from '../../../src/shared/worker-routes';
import { sendError } from './http';

export type Caller = { kind: 'token'; role: Role } | { kind: 'key'; key: string };

/** The credential a request presents, or null: `Authorization: Bearer <token>`, else `x-api-key: <token>`. */
export function presentedToken(headers: IncomingHttpHeaders): string | null {
  // `x-api-key: <token>` (what Anthropic's SDKs send) counts as `Authorization: Bearer <token>`.
  const apiKey = headers['x-api-key'];
  return bearerToken(headers.authorization) ?? (typeof apiKey === 'string' && /^\S+$/.test(apiKey) ? apiKey : null);
}

export function callerOf(headers: IncomingHttpHeaders, matcher: TokenMatcher): Caller {
  const token = presentedToken(headers);
  if (token === null) {
    throw unauthorized(
      'missing_credentials',
      headers.authorization
        ? 'the Authorization header must be `Bearer <token>`'
        : 'send `Authorization: Bearer <token>` (or `x-api-key: <token>`)',
    );
  }
  const role = matcher.match(token);
  return role ? { kind: 'token', role } : { kind: 'key', key: token };
}

/** Requires one of `roles`; an admin may do what a join token may. */
export function requireRole(headers: IncomingHttpHeaders, matcher: TokenMatcher, role: Role): Role {
  const caller = callerOf(headers, matcher);
  if (caller.kind !== 'token') throw unauthorized('invalid_credentials', `this endpoint needs the ${role} token`);
  if (role === 'admin' && caller.role !== 'admin')
    throw forbidden('admin_required', 'this endpoint needs the admin token');
  return caller.role;
}

/**
 * The credential check every route but the public ones needs, cheap and before the body: the
 * admin or join token, or an episode key with a valid signature (which episode, and whether it
 * is still open, is the route's business). Throws the 401 the route would have answered.
 */
export function authenticate(
  headers: IncomingHttpHeaders,
  matcher: TokenMatcher,
  verifyKey: (key: string) => KeyCheck,
): Caller {
  const caller = callerOf(headers, matcher);
  if (caller.kind === 'key') {
    const check = verifyKey(caller.key);
    if (!check.ok) throw keyRefusal(check.reason);
  }
  return caller;
}

/** Routes anyone may call: those the route table declares without a credential. */
const PUBLIC_PATHS = new Set<string>(
  Object.values(workerRoutes)
    .filter((r) => r.auth === 'none')
    .map((r) => r.path),
);

/**
 * Refuses unauthenticated requests in `onRequest`, before the body is read. The refusal closes the
 * connection (`Connection: close`), so a client trickling a body cannot keep the socket either.
 * `pathAuthenticated`: routes whose credential is in the path, checked (also before the body) by
 * their own scope's onRequest hook.
 */
export function installEarlyAuth(
  app: FastifyInstance,
  matcher: TokenMatcher,
  verifyKey: (key: string) => KeyCheck,
  pathAuthenticated: (path: string) => boolean = () => false,
): void {
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?', 1)[0] ?? '';
    if (PUBLIC_PATHS.has(path) || pathAuthenticated(path)) return;
    try {
      authenticate(req.headers, matcher, verifyKey);
    } catch (err) {
      if (!(err instanceof SwarmError)) throw err;
      void reply.header('connection', 'close');
      await sendError(reply, err);
      return reply;
    }
  });
}
