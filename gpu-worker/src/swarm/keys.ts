// Credentials: signed episode keys (HMAC-SHA256 with the run's secret) and the token checks — admin,
// join, and the replica token (good only for attaching rollout replicas). Every comparison of a presented
// credential is constant-time over HMAC digests of equal length; no function here logs or returns a
// presented credential. The secret comes in as an argument.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { unauthorized, type SwarmError } from '../errors';

/** Episode keys look like `ajk1.<episodeId>.<base64url signature>`. */
export const EPISODE_KEY_VERSION = 'ajk1';
const EPISODE_ID_RE = /^ep_[a-z0-9]{8,40}$/;

function mac(secret: Buffer, episodeId: string): Buffer {
  return createHmac('sha256', secret).update(`episode\u0000${episodeId}`).digest();
}

export function newEpisodeId(random: (n: number) => Buffer = randomBytes): string {
  return `ep_${Date.now().toString(36)}${random(8).toString('hex')}`;
}

export const isEpisodeId = (id: string): boolean => EPISODE_ID_RE.test(id);

export function signEpisodeKey(secret: Buffer, episodeId: string): string {
  if (!isEpisodeId(episodeId)) throw new Error(`not an episode id: ${episodeId}`);
  return `${EPISODE_KEY_VERSION}.${episodeId}.${mac(secret, episodeId).toString('base64url')}`;
}

export type KeyCheck = { ok: true; episodeId: string } | { ok: false; reason: 'malformed' | 'bad_signature' };

export function verifyEpisodeKey(secret: Buffer, key: string): KeyCheck {
  const parts = key.split('.');
  if (parts.length !== 3 || parts[0] !== EPISODE_KEY_VERSION || !isEpisodeId(parts[1]!))
    return { ok: false, reason: 'malformed' };
  const presented = Buffer.from(parts[2]!, 'base64url');
  // Only the canonical encoding is accepted (base64 tails have ignorable bits).
  if (presented.toString('base64url') !== parts[2]) return { ok: false, reason: 'malformed' };
  const expected = mac(secret, parts[1]!);
  // Lengths are public (a fixed 32 bytes); the comparison of the bytes is constant-time.
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
    return { ok: false, reason: 'bad_signature' };
  return { ok: true, episodeId: parts[1]! };
}

/** The 401 for a presented key that is not a valid episode key of this server. */
export function keyRefusal(reason: Extract<KeyCheck, { ok: false }>['reason']): SwarmError {
  return reason === 'malformed'
    ? unauthorized(
        'invalid_api_key',
        'the API key is not an episode key of this server; claim an episode first (POST /swarm/v1/episodes)',
      )
    : unauthorized('invalid_episode_key', 'the episode key is not valid (bad signature)');
}

export type Role = 'admin' | 'join';
/**
 * Every token a worker may be given: the roles, and the replica token, whose only power is attaching
 * rollout replicas (`/swarm/v1/replicas/attach`). It is never a Role, so every other route and upgrade
 * sees it as the unknown token it is for them.
 */
export type TokenName = Role | 'replica';

/** Matches a presented bearer token against the admin and join tokens (or others: `R`) in constant time. */
export class TokenMatcher<R extends string = Role> {
  private readonly key = randomBytes(32);
  private readonly digests: [R, Buffer][];

  constructor(tokens: Record<R, string>) {
    this.digests = (Object.entries(tokens) as [R, string][]).map(([role, token]) => [role, this.digest(token)]);
  }

  /** The role of `presented`, or null. Checks every role so timing does not depend on which matched. */
  match(presented: string): R | null {
    const d = this.digest(presented);
    let found: R | null = null;
    for (const [role, digest] of this.digests) if (timingSafeEqual(d, digest) && found === null) found = role;
    return found;
  }

  private digest(token: string): Buffer {
    return createHmac('sha256', this.key).update(token).digest();
  }
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/** A fresh random token (admin/join) or secret. */
export const newToken = (prefix: string): string => `${prefix}_${randomBytes(24).toString('base64url')}`;

/** The shortest admin, join or replica token accepted from a flag or the environment. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Why explicit tokens cannot be used, or null: each must be at least MIN_TOKEN_LENGTH printable
 * characters without spaces (what a bearer header carries), admin and join must differ (a shared
 * token would let every client act as the admin), and the replica token must be neither
 * (replicaTokenClash). `sources` names where each came from.
 */
export function explicitTokenProblem(
  tokens: Partial<Record<TokenName, string>>,
  sources: Partial<Record<TokenName, string>> = {},
): string | null {
  for (const name of ['admin', 'join', 'replica'] as const) {
    const token = tokens[name];
    if (token === undefined) continue;
    const from = sources[name] ?? `the ${name} token`;
    if (token.length < MIN_TOKEN_LENGTH)
      return (
        `${from} is ${token.length} characters long; use at least ${MIN_TOKEN_LENGTH} (e.g. \`openssl rand ` +
        `-hex 24\`)`
      );
    if (!/^[\x21-\x7e]+$/.test(token))
      return `${from} must be printable ASCII without spaces (it travels in an Authorization: Bearer header)`;
  }
  if (tokens.admin !== undefined && tokens.admin === tokens.join) {
    return (
      `${sources.admin ?? 'the admin token'} and ${sources.join ?? 'the join token'} are the same: the ` +
      'admin token must differ from the join token, or every client could act as the admin'
    );
  }
  return replicaTokenClash(tokens.replica, tokens, sources);
}

/**
 * Why `replica` cannot be the replica token beside these admin and join tokens, or null: it must be
 * neither, or a replica host would hold more than the power to attach replicas. A start-time check of
 * the operator's own settings (no presented credential is involved, so plain equality is fine here).
 */
export function replicaTokenClash(
  replica: string | undefined,
  tokens: Partial<Record<Role, string>>,
  sources: Partial<Record<TokenName, string>> = {},
): string | null {
  if (replica === undefined) return null;
  for (const role of ['admin', 'join'] as const) {
    if (tokens[role] !== replica) continue;
    return (
      `${sources.replica ?? 'the replica token'} is the same as ${sources[role] ?? `the ${role} token`}: the ` +
      'replica token must differ from the admin and join tokens, or a replica host could do what they do'
    );
  }
  return null;
}
