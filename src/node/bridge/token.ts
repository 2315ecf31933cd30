// Bridge tokens: a random secret per `agentjet ui` session, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, URL-safe (it travels in the page URL's hash and the WebSocket query). */
export function newBridgeToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time equality that does not leak the expected length (both sides hashed first). */
export function tokensEqual(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string' || given.length === 0) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
