import { describe, expect, it } from 'vitest';
import { crc32c, maskedCrc32c } from './crc32c';
import { encodeEvent, eventFileName, scalarsRecord, tfRecord } from './event-file';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');

describe('CRC-32C', () => {
  it('matches the standard check values', () => {
    expect(crc32c(bytes('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('masks as TFRecord does: rotate right 15, add 0xa282ead8', () => {
    const c = 0xe3069283;
    expect(maskedCrc32c(bytes('123456789'))).toBe(((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0);
  });
});

describe('Event protobuf and TFRecord framing', () => {
  it('encodes wall_time (double), step (varint) and file_version (string)', () => {
    // field 1 wire 1 = 0x09, field 2 wire 0 = 0x10, field 3 wire 2 = 0x1a
    expect(hex(encodeEvent({ wallTime: 1, step: 300, fileVersion: 'brain.Event:2' }))).toBe(
      `09000000000000f03f10ac021a0d${hex(bytes('brain.Event:2'))}`,
    );
  });

  it('encodes a summary of simple values', () => {
    const e = encodeEvent({ wallTime: 0, step: 1, scalars: [{ tag: 'a', value: 0.5 }] });
    // summary = field 5 (0x2a), 10 bytes: value = field 1 (0x0a), 8 bytes { tag field 1 "a", simple_value field 2 fixed32 (0x15) 0.5f }
    expect(hex(e)).toBe('0900000000000000001001' + '2a0a' + '0a08' + '0a0161' + '150000003f');
  });

  it('frames a record with its length and masked checksums, and leaves out non-finite scalars', () => {
    const data = bytes('hello');
    const rec = tfRecord(data);
    const view = new DataView(rec.buffer);
    expect(rec.length).toBe(8 + 4 + 5 + 4);
    expect(view.getBigUint64(0, true)).toBe(5n);
    expect(view.getUint32(8, true)).toBe(maskedCrc32c(rec.subarray(0, 8)));
    expect(view.getUint32(17, true)).toBe(maskedCrc32c(data));
    expect(scalarsRecord(0, 1, [{ tag: 'x', value: Number.NaN }])).toBeNull();
    expect(eventFileName(1700000000.7, 'my host', '.1.x')).toBe('events.out.tfevents.1700000000.my_host.1.x');
  });
});
