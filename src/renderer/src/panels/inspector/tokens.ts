// Pure helpers of the token strips: visible whitespace, logprob → colour, hover titles, per-strip
// statistics and the chunks a long strip renders in. No DOM here; unit-tested in node.
import type { TokenView } from '../../../../shared/workbench-api';

const CONTROL_PICTURES: Record<string, string> = {
  '\r': '␍',
  '\u0000': '␀',
  '\u000b': '␋',
  '\u000c': '␌',
  '\u001b': '␛',
};

/**
 * A token's text as the strip shows it. With `showWhitespace`, spaces become `·`, tabs `→`, and a
 * newline `↵` followed by a real line break (the strip is `white-space: pre-wrap`); other control
 * characters always show as their Unicode pictures. An empty token shows as `∅`.
 */
export function displayToken(text: string, showWhitespace: boolean): string {
  if (text === '') return '∅';
  let out = '';
  for (const ch of text) {
    if (showWhitespace && ch === ' ') out += '·';
    else if (showWhitespace && ch === '\t') out += '→\t';
    else if (ch === '\n') out += showWhitespace ? '↵\n' : '\n';
    else if (CONTROL_PICTURES[ch] !== undefined) out += CONTROL_PICTURES[ch];
    else {
      const code = ch.codePointAt(0)!;
      out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
    }
  }
  return out;
}

/** exp(logprob) clamped to [0, 1]. */
export function probability(logprob: number): number {
  if (!Number.isFinite(logprob)) return logprob > 0 ? 1 : 0;
  return Math.min(1, Math.max(0, Math.exp(logprob)));
}

/**
 * The background of a trained token: hue from red (p≈0, the policy was unsure) to green (p≈1),
 * stronger the less likely the token was. Null for context tokens (they are dimmed instead).
 */
export function logprobColor(logprob: number | null): string | null {
  if (logprob === null) return null;
  const p = probability(logprob);
  const hue = Math.round(120 * p);
  const alpha = (0.28 + 0.42 * (1 - p)).toFixed(2);
  return `hsla(${hue}, 70%, 45%, ${alpha})`;
}

/**
 * The hover title of a token: a trained token's logprob as a plain number (tests and tools read it
 * back with `Number(title)`); a context token says so.
 */
export function tokenTitle(token: TokenView): string {
  if (token.logprob !== null) return String(Number(token.logprob.toFixed(4)));
  return token.mask === 1 ? 'trained (no logprob)' : 'context';
}

/** The longer description of a token, for the strip's hover readout. */
export function tokenDescription(token: TokenView): string {
  const kind = token.mask === 1 ? 'trained' : 'context';
  const lp =
    token.logprob === null ? '' : ` · logprob ${token.logprob.toFixed(4)} · p ${probability(token.logprob).toFixed(3)}`;
  return `${kind} · id ${token.id} · ${JSON.stringify(token.text)}${lp}`;
}

export interface StripStats {
  total: number;
  trained: number;
  context: number;
  /** Mean logprob of the trained tokens that have one (null when none). */
  meanLogprob: number | null;
  /** Number of maximal runs of trained tokens. */
  trainedRuns: number;
}

export function stripStats(tokens: readonly TokenView[]): StripStats {
  let trained = 0;
  let sum = 0;
  let withLogprob = 0;
  let runs = 0;
  let prev: 0 | 1 = 0;
  for (const t of tokens) {
    if (t.mask === 1) {
      trained += 1;
      if (prev === 0) runs += 1;
      if (t.logprob !== null) {
        sum += t.logprob;
        withLogprob += 1;
      }
    }
    prev = t.mask;
  }
  return {
    total: tokens.length,
    trained,
    context: tokens.length - trained,
    meanLogprob: withLogprob ? sum / withLogprob : null,
    trainedRuns: runs,
  };
}

/** Half-open `[start, end)` ranges of at most `size` tokens covering `[0, count)`, for chunked rendering. */
export function chunkRanges(count: number, size: number): [number, number][] {
  if (size <= 0) throw new Error(`chunk size must be positive, got ${size}`);
  const out: [number, number][] = [];
  for (let start = 0; start < count; start += size) out.push([start, Math.min(count, start + size)]);
  return out;
}

/** How many tokens of a strip to render: the cap, grown by "show more" in steps, never above the total. */
export function visibleTokenCount(total: number, shown: number): number {
  return Math.max(0, Math.min(total, shown));
}

/**
 * For a call strip whose prompt is hidden: the index of the first token to show (the first trained
 * token, less a little context), so the output is visible without scrolling through the prompt.
 */
export function outputStart(tokens: readonly TokenView[], contextBefore: number): number {
  const first = tokens.findIndex((t) => t.mask === 1);
  if (first < 0) return Math.max(0, tokens.length - contextBefore);
  return Math.max(0, first - contextBefore);
}
