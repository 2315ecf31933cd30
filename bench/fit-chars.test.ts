// Sizing synthetic conversations: never returns a size over the context, converges on linear renders.
import { describe, expect, it } from 'vitest';
import { fitChars, type MeasureTokens } from './fit-chars';

/** A fake render: `base + chars × perChar` tokens, null (refused) beyond `context`; records every probe. */
function fakeRender(base: number, perChar: number, context: number): { measure: MeasureTokens; probes: number[] } {
  const probes: number[] = [];
  return {
    probes,
    measure: (chars) => {
      probes.push(chars);
      const tokens = Math.round(base + chars * perChar);
      return Promise.resolve(tokens > context ? null : tokens);
    },
  };
}

describe('fitChars', () => {
  it('lands within 4% of the target of a linear render', async () => {
    const { measure } = fakeRender(300, 19, 1024); // 19 tool outputs of ~1 token per char
    const chars = await fitChars(measure, 870);
    const tokens = 300 + chars * 19;
    expect(Math.abs(tokens - 870)).toBeLessThan(870 * 0.04);
  });

  it('bisects away from a probe the context refuses and returns a size that fits', async () => {
    const { measure, probes } = fakeRender(100, 50, 1024);
    const chars = await fitChars(measure, 870, 400); // the first probe is far beyond the context
    expect(probes[1]).toBe(400);
    expect(100 + chars * 50).toBeLessThanOrEqual(870 * 1.04);
    expect(chars).toBeGreaterThan(0);
  });

  it('handles a render that grows faster than linear without overshooting the context', async () => {
    const measure: MeasureTokens = (c) => {
      const tokens = 200 + c * 2 + (c * c) / 50;
      return Promise.resolve(tokens > 1024 ? null : tokens);
    };
    const chars = await fitChars(measure, 870);
    expect(200 + chars * 2 + (chars * chars) / 50).toBeLessThanOrEqual(870 * 1.04);
  });

  it('refuses clearly when the conversation without filler is already over the target', async () => {
    const { measure } = fakeRender(900, 1, 1024);
    await expect(fitChars(measure, 870)).rejects.toThrow(/without filler is 900 tokens/);
    const over = fakeRender(2000, 1, 1024);
    await expect(fitChars(over.measure, 870)).rejects.toThrow(/beyond the context/);
  });
});
