// Compact binary codecs for the store's number arrays: token ids as little-endian Uint32, logprobs
// as little-endian Float32 (the precision they are shown and trained with), parents/positions/
// weights as Int32, loss masks bit-packed (LSB first). Pure: Uint8Array in, arrays out; decoding
// rejects a blob whose length does not fit, so a damaged row is an error, not garbage.

const LITTLE_ENDIAN = true;

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function checkWidth(bytes: Uint8Array, width: number, what: string): number {
  if (bytes.byteLength % width !== 0)
    throw new Error(`${what}: ${bytes.byteLength} bytes is not a multiple of ${width}`);
  return bytes.byteLength / width;
}

export function encodeUint32(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const v = view(bytes);
  values.forEach((x, i) => {
    if (!Number.isInteger(x) || x < 0 || x > 0xffff_ffff) throw new Error(`encodeUint32: ${x} at ${i} is not a uint32`);
    v.setUint32(i * 4, x, LITTLE_ENDIAN);
  });
  return bytes;
}

export function decodeUint32(bytes: Uint8Array): number[] {
  const n = checkWidth(bytes, 4, 'decodeUint32');
  const v = view(bytes);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = v.getUint32(i * 4, LITTLE_ENDIAN);
  return out;
}

export function encodeInt32(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const v = view(bytes);
  values.forEach((x, i) => {
    if (!Number.isInteger(x) || x < -0x8000_0000 || x > 0x7fff_ffff)
      throw new Error(`encodeInt32: ${x} at ${i} is not an int32`);
    v.setInt32(i * 4, x, LITTLE_ENDIAN);
  });
  return bytes;
}

export function decodeInt32(bytes: Uint8Array): number[] {
  const n = checkWidth(bytes, 4, 'decodeInt32');
  const v = view(bytes);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = v.getInt32(i * 4, LITTLE_ENDIAN);
  return out;
}

/** Float32: values come back as `Math.fround(x)` (logprobs need no more). */
export function encodeFloat32(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const v = view(bytes);
  values.forEach((x, i) => v.setFloat32(i * 4, x, LITTLE_ENDIAN));
  return bytes;
}

export function decodeFloat32(bytes: Uint8Array): number[] {
  const n = checkWidth(bytes, 4, 'decodeFloat32');
  const v = view(bytes);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = v.getFloat32(i * 4, LITTLE_ENDIAN);
  return out;
}

/** A 0/1 mask packed 8 per byte; the length travels separately (the token count). */
export function encodeMask(mask: readonly (0 | 1)[]): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(mask.length / 8));
  mask.forEach((bit, i) => {
    if (bit === 1) bytes[i >> 3] = (bytes[i >> 3] ?? 0) | (1 << (i & 7));
  });
  return bytes;
}

export function decodeMask(bytes: Uint8Array, length: number): (0 | 1)[] {
  if (!Number.isInteger(length) || length < 0 || Math.ceil(length / 8) !== bytes.byteLength) {
    throw new Error(`decodeMask: ${bytes.byteLength} bytes cannot hold a mask of ${length}`);
  }
  const out = new Array<0 | 1>(length);
  for (let i = 0; i < length; i++) out[i] = ((bytes[i >> 3] ?? 0) >> (i & 7)) & 1 ? 1 : 0;
  return out;
}
