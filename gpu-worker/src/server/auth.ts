// Who is calling: the bearer credential (or x-api-key) of a request checked against the admin and join tokens
// (constant time) or read as a signed episode key. Credentials are never logged or echoed.
import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, type Role, type TokenMatcher } from '../swarm/keys';
import { forbidden, unauthorized } from '../swarm/errors';

export type Caller = { kind: 'token'; role: Role } | { kind: 'key'; key: string };

export function callerOf(headers: IncomingHttpHeaders, matcher: TokenMatcher): Caller {
  // `x-api-key: <token>` (what Anthropic's SDKs send) counts as `Authorization: Bearer <token>`.
  const apiKey = headers['x-api-key'];
  const token = bearerToken(headers.authorization) ?? (typeof apiKey === 'string' && /^\S+$/.test(apiKey) ? apiKey : null);
  if (token === null) {
    throw unauthorized('missing_credentials', headers.authorization ? 'the Authorization header must be `Bearer <token>`' : 'send `Authorization: Bearer <token>` (or `x-api-key: <token>`)');
  }
  const role = matcher.match(token);
  return role ? { kind: 'token', role } : { kind: 'key', key: token };
}

/** Requires one of `roles`; an admin may do what a join token may. */
export function requireRole(headers: IncomingHttpHeaders, matcher: TokenMatcher, role: Role): Role {
  const caller = callerOf(headers, matcher);
  if (caller.kind !== 'token') throw unauthorized('invalid_credentials', `this endpoint needs the ${role} token`);
  if (role === 'admin' && caller.role !== 'admin') throw forbidden('admin_required', 'this endpoint needs the admin token');
  return caller.role;
}
