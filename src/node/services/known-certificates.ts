// The certificates the workbench trusts, per remote worker (`<data>/known-workers.json`, 0600, like
// ssh's known_hosts): trust on first use, a fingerprint the user gave replaces the pin, and a
// changed certificate is refused with a message naming both fingerprints. `pinDecision` is the pure
// rule; KnownCertificates the file.
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../../../gpu-worker/src/swarm/run-dir';

const PinSchema = z.object({ fingerprint256: z.string(), firstSeen: z.number(), lastSeen: z.number() });
export type Pin = z.infer<typeof PinSchema>;
const FileSchema = z.object({ version: z.literal(1), workers: z.record(z.string(), PinSchema) });

export type PinDecision =
  | { ok: true; fingerprint256: string; firstUse: boolean; replaced: string | null }
  | { ok: false; code: 'certificate_changed' | 'certificate_mismatch'; message: string };

/**
 * Whether to trust `presented` for `remote`: the fingerprint the user `given` must match it (and
 * becomes the pin); else a `known` pin must match it; else it is trusted on first use.
 */
export function pinDecision(remote: string, presented: string, known: Pin | null, given: string | null): PinDecision {
  if (given !== null) {
    if (given !== presented)
      return {
        ok: false,
        code: 'certificate_mismatch',
        message:
          `${remote} presented a certificate with SHA-256 fingerprint ${presented}, not the ${given} you ` +
          'gave; refused (check the fingerprint the worker printed at start)',
      };
    const replaced = known && known.fingerprint256 !== given ? known.fingerprint256 : null;
    return { ok: true, fingerprint256: given, firstUse: false, replaced };
  }
  if (known === null) return { ok: true, fingerprint256: presented, firstUse: true, replaced: null };
  if (known.fingerprint256 === presented)
    return { ok: true, fingerprint256: presented, firstUse: false, replaced: null };
  return {
    ok: false,
    code: 'certificate_changed',
    message:
      `the certificate of ${remote} changed: trusted SHA-256 ${known.fingerprint256} (since ` +
      `${new Date(known.firstSeen).toISOString()}), now presented ${presented}. Refused: someone may be ` +
      'intercepting the connection. If the worker made a new certificate (a new run folder, a new --tls-cert), ' +
      'compare the fingerprint it printed at start and paste it into "Certificate fingerprint" to trust it.',
  };
}

export class KnownCertificates {
  constructor(readonly file: string) {}

  get(remote: string): Pin | null {
    return this.read()[remote] ?? null;
  }

  /** Records `fingerprint256` as the certificate of `remote` (first seen now when it is new or replaced). */
  trust(remote: string, fingerprint256: string, now = Date.now()): void {
    const workers = this.read();
    const old = workers[remote];
    workers[remote] = {
      fingerprint256,
      firstSeen: old && old.fingerprint256 === fingerprint256 ? old.firstSeen : now,
      lastSeen: now,
    };
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, workers }, null, 2)}\n`);
  }

  private read(): Record<string, Pin> {
    if (!existsSync(this.file)) return {};
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (err) {
      throw new Error(`${this.file}: not JSON (${err instanceof Error ? err.message : String(err)}); fix or remove it`);
    }
    const parsed = FileSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`${this.file}: ${z.prettifyError(parsed.error)}; fix or remove it`);
    return parsed.data.workers;
  }
}
