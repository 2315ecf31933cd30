import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeFloat32,
  decodeInt32,
  decodeMask,
  decodeUint32,
  encodeFloat32,
  encodeInt32,
  encodeMask,
  encodeUint32,
} from './codec';

describe('codec', () => {
  it('round-trips uint32 token ids, 4 bytes each, little-endian', () => {
    const bytes = encodeUint32([1, 0x0102_0304, 0xffff_ffff]);
    expect(bytes.byteLength).toBe(12);
    expect([...bytes.slice(4, 8)]).toEqual([4, 3, 2, 1]);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffff_ffff })), (ids) => {
        expect(decodeUint32(encodeUint32(ids))).toEqual(ids);
      }),
    );
  });

  it('round-trips int32 values (parents with -1)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -0x8000_0000, max: 0x7fff_ffff })), (xs) => {
        expect(decodeInt32(encodeInt32(xs))).toEqual(xs);
      }),
    );
  });

  it('round-trips logprobs at float32 precision', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 0, noNaN: true })), (xs) => {
        expect(decodeFloat32(encodeFloat32(xs))).toEqual(xs.map((x) => Math.fround(x)));
      }),
    );
  });

  it('round-trips bit-packed loss masks of any length', () => {
    expect([...encodeMask([1, 0, 0, 0, 0, 0, 0, 0, 1])]).toEqual([1, 1]);
    fc.assert(
      fc.property(fc.array(fc.constantFrom<0 | 1>(0, 1), { maxLength: 300 }), (mask) => {
        const bytes = encodeMask(mask);
        expect(bytes.byteLength).toBe(Math.ceil(mask.length / 8));
        expect(decodeMask(bytes, mask.length)).toEqual(mask);
      }),
    );
  });

  it('decodes from a view into a larger buffer (as SQLite blobs may be)', () => {
    const inner = encodeUint32([7, 8, 9]);
    const outer = new Uint8Array(20);
    outer.set(inner, 4);
    expect(decodeUint32(outer.subarray(4, 16))).toEqual([7, 8, 9]);
  });

  it('rejects values and blobs that do not fit', () => {
    expect(() => encodeUint32([-1])).toThrow(/not a uint32/);
    expect(() => encodeUint32([1.5])).toThrow(/not a uint32/);
    expect(() => encodeInt32([2 ** 31])).toThrow(/not an int32/);
    expect(() => decodeUint32(new Uint8Array(5))).toThrow(/not a multiple of 4/);
    expect(() => decodeFloat32(new Uint8Array(3))).toThrow(/not a multiple of 4/);
    expect(() => decodeMask(new Uint8Array(1), 9)).toThrow(/cannot hold a mask of 9/);
  });
});
