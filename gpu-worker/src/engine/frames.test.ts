import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder } from './frames';

describe('frames', () => {
  it('round-trips messages split at arbitrary byte boundaries', () => {
    const messages = [
      { id: 1, result: { text: 'héllo 🚀' } },
      { id: 2, result: Array.from({ length: 5000 }, (_, i) => i) },
    ];
    const bytes = Buffer.concat(messages.map(encodeFrame));
    for (const step of [1, 3, 7, 4096]) {
      const dec = new FrameDecoder();
      const got: unknown[] = [];
      for (let i = 0; i < bytes.length; i += step) got.push(...dec.push(bytes.subarray(i, i + step)));
      expect(got).toEqual(messages);
    }
  });

  it('reports and skips a frame that is not JSON, then keeps decoding', () => {
    const errors: string[] = [];
    const dec = new FrameDecoder((m) => errors.push(m));
    const bad = Buffer.from('not json');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(bad.length, 0);
    const got = dec.push(Buffer.concat([header, bad, encodeFrame({ ok: true })]));
    expect(got).toEqual([{ ok: true }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/malformed frame/);
  });

  it('refuses an absurd length prefix instead of waiting forever', () => {
    const errors: string[] = [];
    const dec = new FrameDecoder((m) => errors.push(m));
    const header = Buffer.alloc(4);
    header.writeUInt32BE(0xffffffff, 0);
    expect(dec.push(header)).toEqual([]);
    expect(errors[0]).toMatch(/exceeds/);
    expect(dec.push(encodeFrame({ after: 1 }))).toEqual([{ after: 1 }]);
  });
});
