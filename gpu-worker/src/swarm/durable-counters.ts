// The worker's counters (claimed, ended, aborted, …) kept on disk as they change, so that after
// `kill -9` and `--resume` none of them goes backwards. `state.json` records them only at
// checkpoints; this file, `<run-dir>/counters.json`, is rewritten in place (one fixed-size
// record at offset 0, a single write) on every change, before the change can be observed — a
// write that survives the process being killed (the page cache is the kernel's); `state.json`'s
// fsynced copy covers a power loss. On resume each counter is the larger of the two.
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { CountersSchema, type Counters } from '../../../src/shared/swarm-protocol';

/** Bytes of the record: the JSON padded with spaces (JSON.parse ignores them). */
const RECORD_BYTES = 1024;

/** The counters last written to `path`, or null when it is missing or unreadable. */
export function readCountersFile(path: string): Counters | null {
  try {
    const parsed = CountersSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Each counter the larger of the two (both only ever grow). */
export function maxCounters(a: Counters, b: Counters | null): Counters {
  if (!b) return { ...a };
  const out = { ...a };
  for (const k of Object.keys(out) as (keyof Counters)[]) out[k] = Math.max(a[k], b[k]);
  return out;
}

/**
 * Counters that write themselves through: `open` returns an object with the fields of Counters
 * whose every assignment (`counters.ended += 1`) rewrites the file before it returns. A failing
 * write is reported once (`onError`) and the counters go on in memory.
 */
export class DurableCounters {
  private fd: number | null;
  private failed = false;
  readonly counters: Counters;

  private constructor(
    path: string,
    initial: Counters,
    private readonly onError: (message: string) => void,
  ) {
    // Not truncated: the record is rewritten in place, so the file never holds less than one.
    this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT, 0o600);
    const target = { ...initial };
    this.counters = new Proxy(target, {
      set: (obj, key, value: unknown) => {
        const ok = Reflect.set(obj, key, value);
        this.write(obj);
        return ok;
      },
    });
    this.write(target);
  }

  /** Opens `path`, starting from the larger of `saved` (state.json's) and what the file holds. */
  static open(path: string, saved: Counters, onError: (message: string) => void = () => undefined): DurableCounters {
    return new DurableCounters(path, maxCounters(saved, readCountersFile(path)), onError);
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  private write(c: Counters): void {
    if (this.fd === null || this.failed) return;
    const json = JSON.stringify(c);
    const record = Buffer.alloc(RECORD_BYTES, ' ');
    record.write(json, 0, 'utf8');
    record[RECORD_BYTES - 1] = 0x0a;
    try {
      if (Buffer.byteLength(json) >= RECORD_BYTES) throw new Error('the counters outgrew their record');
      writeSync(this.fd, record, 0, RECORD_BYTES, 0);
    } catch (err) {
      this.failed = true;
      this.onError(
        'counters: writing counters.json failed, they are kept in memory until the next checkpoint: ' +
          `${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
