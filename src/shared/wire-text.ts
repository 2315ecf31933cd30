// Strings a client may send, as the swarm server's contract accepts them (re-exported by
// swarm-protocol.ts): well-formed text without NUL, and printable ids.
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Strings a client may send
// ---------------------------------------------------------------------------------------------

/** Lone UTF-16 surrogates (what broken UTF-8 turns into) and NUL are refused in every string. */
export function isCleanText(s: string): boolean {
  return !s.includes('\u0000') && !/[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));
}

/** Free text (message content, tool arguments): any well-formed text without NUL. */
export const TextSchema = z
  .string()
  .refine(isCleanText, { message: 'must be well-formed text without NUL characters' });

export function hasNoControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

/** Identifiers chosen by clients (client ids, task ids, agent names): printable, no control characters. */
export const IdSchema = z
  .string()
  .min(1)
  .max(200)
  .refine(hasNoControlChars, { message: 'must not contain control characters' })
  .refine(isCleanText, { message: 'must be well-formed text' });
