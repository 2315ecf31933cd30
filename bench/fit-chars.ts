// Sizing synthetic conversations for the benchmarks: the filler size (characters) for which a render is
// about `target` tokens, found without ever relying on a render that exceeds the model's context.

/** Tokens of the conversation with `chars` of filler, or null where the render does not fit the context. */
export type MeasureTokens = (chars: number) => Promise<number | null>;

/**
 * The `chars` for which `measure(chars)` (growing about linearly in chars) is within 4% of `target`,
 * else the largest size probed that stays at or under it. Probes start small (`firstProbe`) and
 * extrapolate from the best size known to fit; a probe over the target or the context brackets the
 * search from above, so an overshoot is bisected away rather than thrown.
 */
export async function fitChars(measure: MeasureTokens, target: number, firstProbe = 16): Promise<number> {
  const base = await measure(0);
  if (base === null || base >= target)
    throw new Error(
      `the conversation without filler is ${base ?? 'beyond the context in'} tokens, over the target of ${target}`,
    );
  let lo = 0; // largest chars known to render at or under the target
  let loTokens = base;
  let hi = Infinity; // smallest chars known to overshoot
  let chars = Math.max(1, firstProbe);
  for (let i = 0; i < 10; i++) {
    const tokens = await measure(chars);
    if (tokens !== null && Math.abs(tokens - target) < target * 0.04) return chars;
    if (tokens === null || tokens > target) hi = chars;
    else [lo, loTokens] = [chars, tokens];
    let next =
      lo > 0 && loTokens > base ? Math.floor((lo * (target - base)) / (loTokens - base)) : Math.floor(chars / 2);
    if (next <= lo || next >= hi) next = Number.isFinite(hi) ? Math.floor((lo + hi) / 2) : lo * 2;
    if (next <= lo || next >= hi) break;
    chars = next;
  }
  return lo;
}
