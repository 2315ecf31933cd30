// TensorBoard event files without TensorFlow: `Event` protobufs (wall_time, step, file_version or
// a Summary of scalar values) encoded by hand and framed as TFRecords (little-endian uint64 length,
// masked CRC-32C of the length, the data, masked CRC-32C of the data). A file is the version record
// followed by one record per step; TensorBoard reads every `events.out.tfevents.*` file of a folder.
// Pure: bytes out; the caller writes them.
import { maskedCrc32c } from './crc32c';

export interface Scalar {
  tag: string;
  value: number;
}

const utf8 = new TextEncoder();

/** Protobuf writer for the few field types an Event needs. */
class Proto {
  private readonly parts: Uint8Array[] = [];

  private varint(n: bigint): void {
    const out: number[] = [];
    let v = BigInt.asUintN(64, n);
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) b |= 0x80;
      out.push(b);
    } while (v > 0n);
    this.parts.push(Uint8Array.from(out));
  }

  private key(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  double(field: number, v: number): this {
    this.key(field, 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    this.parts.push(b);
    return this;
  }

  float(field: number, v: number): this {
    this.key(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.parts.push(b);
    return this;
  }

  int64(field: number, v: number): this {
    this.key(field, 0);
    this.varint(BigInt(Math.trunc(v)));
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.key(field, 2);
    this.varint(BigInt(b.length));
    this.parts.push(b);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, utf8.encode(s));
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/** `Event` (tensorflow/core/util/event.proto): 1 wall_time, 2 step, 3 file_version, 5 summary. */
export function encodeEvent(e: {
  wallTime: number;
  step: number;
  fileVersion?: string;
  scalars?: readonly Scalar[];
}): Uint8Array {
  const p = new Proto().double(1, e.wallTime).int64(2, e.step);
  if (e.fileVersion !== undefined) p.string(3, e.fileVersion);
  if (e.scalars && e.scalars.length > 0) {
    // Summary { repeated Value value = 1 }, Value { string tag = 1; float simple_value = 2 }.
    const summary = new Proto();
    for (const s of e.scalars) summary.bytes(1, new Proto().string(1, s.tag).float(2, s.value).finish());
    p.bytes(5, summary.finish());
  }
  return p.finish();
}

/** One TFRecord around `data`. */
export function tfRecord(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + 4 + data.length + 4);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(out.subarray(0, 8)), true);
  out.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}

/** The first record of every event file. */
export const fileVersionRecord = (wallTime: number): Uint8Array =>
  tfRecord(encodeEvent({ wallTime, step: 0, fileVersion: 'brain.Event:2' }));

/** A record of scalar values at a step (non-finite values are left out: TensorBoard cannot plot them). */
export function scalarsRecord(wallTime: number, step: number, scalars: readonly Scalar[]): Uint8Array | null {
  const finite = scalars.filter((s) => Number.isFinite(s.value));
  return finite.length === 0 ? null : tfRecord(encodeEvent({ wallTime, step, scalars: finite }));
}

/** TensorBoard's file name convention: `events.out.tfevents.<seconds>.<host><suffix>`. */
export const eventFileName = (wallTime: number, host: string, suffix = ''): string =>
  `events.out.tfevents.${Math.floor(wallTime)}.${host.replace(/[^A-Za-z0-9._-]/g, '_')}${suffix}`;
