// Credentials: signed episode keys (HMAC-SHA256 with the run's secret) and the admin/join token
// check. Every comparison is constant-time over HMAC digests of equal length; no function here
// logs or returns a presented credential. The secret comes in as an argument.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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
  if (parts.length !== 3 || parts[0] !== EPISODE_KEY_VERSION || !isEpisodeId(parts[1]!)) return { ok: false, reason: 'malformed' };
  const presented = Buffer.from(parts[2]!, 'base64url');
  // Only the canonical encoding is accepted (base64 tails have ignorable bits).
  if (presented.toString('base64url') !== parts[2]) return { ok: false, reason: 'malformed' };
  const expected = mac(secret, parts[1]!);
  // Lengths are public (a fixed 32 bytes); the comparison of the bytes is constant-time.
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { ok: false, reason: 'bad_signature' };
  return { ok: true, episodeId: parts[1]! };
}

export type Role = 'admin' | 'join';

/** Matches a presented bearer token against the admin and join tokens in constant time. */
export class TokenMatcher {
  private readonly key = randomBytes(32);
  private readonly digests: [Role, Buffer][];

  constructor(tokens: Record<Role, string>) {
    this.digests = (Object.entries(tokens) as [Role, string][]).map(([role, token]) => [role, this.digest(token)]);
  }

  /** The role of `presented`, or null. Checks every role so timing does not depend on which matched. */
  match(presented: string): Role | null {
    const d = this.digest(presented);
    let found: Role | null = null;
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
