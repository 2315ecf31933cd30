// A certificate's SHA-256 fingerprint the way people compare it: 32 bytes as upper-case hex pairs
// joined by colons (`AB:CD:…`, what `openssl x509 -fingerprint -sha256` and Node print). What a user
// pastes (any case; colons, spaces or nothing between the pairs) is read into that one form. Pure.
import { z } from 'zod';

const PASTED = /^[0-9a-f]{2}([:\s]?[0-9a-f]{2}){31}$/i;

/** The canonical form of a pasted fingerprint, or null when it is not 32 hex byte pairs. */
export function parseFingerprint(text: string): string | null {
  const t = text.trim().replace(/^sha-?256\s*(fingerprint)?\s*[=:]?\s*/i, '');
  if (!PASTED.test(t)) return null;
  return (t.replace(/[:\s]/g, '').toUpperCase().match(/../g) ?? []).join(':');
}

/** A pasted fingerprint (e.g. a connect form's), refused with a readable message unless it parses. */
export const FingerprintTextSchema = z
  .string()
  .max(200)
  .refine((s) => parseFingerprint(s) !== null, 'a SHA-256 fingerprint: 32 hex byte pairs such as AB:CD:…:EF');
