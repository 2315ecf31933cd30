import { describe, expect, it } from 'vitest';
import type { TokenView } from '../../../../shared/workbench-api';
import {
  chunkRanges,
  displayToken,
  logprobColor,
  outputStart,
  probability,
  stripStats,
  tokenDescription,
  tokenTitle,
  visibleTokenCount,
} from './tokens';

const tok = (mask: 0 | 1, logprob: number | null = null, text = 'x', id = 1): TokenView => ({
  id,
  text,
  mask,
  logprob,
});

describe('displayToken', () => {
  it('makes spaces, tabs and newlines visible, keeping a real line break after ↵', () => {
    expect(displayToken(' a\tb\n', true)).toBe('·a→\tb↵\n');
    expect(displayToken(' a\n', false)).toBe(' a\n');
  });
  it('shows control characters and empty tokens', () => {
    expect(displayToken('\r', false)).toBe('␍');
    expect(displayToken('\u0001', false)).toBe('\\x01');
    expect(displayToken('', true)).toBe('∅');
    expect(displayToken('héllo\uFFFD', true)).toBe('héllo\uFFFD');
  });
});

describe('logprob colours', () => {
  it('maps probability to hue: green when sure, red when unsure, stronger when unsure', () => {
    expect(logprobColor(0)).toBe('hsla(120, 70%, 45%, 0.28)');
    expect(logprobColor(-50)).toBe('hsla(0, 70%, 45%, 0.70)');
    expect(logprobColor(Math.log(0.5))).toBe('hsla(60, 70%, 45%, 0.49)');
    expect(logprobColor(null)).toBeNull();
  });
  it('clamps odd values', () => {
    expect(probability(0.5)).toBe(1);
    expect(probability(-Infinity)).toBe(0);
    expect(probability(Number.NaN)).toBe(0);
  });
  it('titles trained tokens with their logprob as a plain number and context tokens as context', () => {
    expect(tokenTitle(tok(1, -0.123456, 'a', 7))).toBe('-0.1235');
    expect(Number(tokenTitle(tok(1, -2, 'a', 7)))).toBe(-2);
    expect(tokenTitle(tok(0, null, 'a', 3))).toBe('context');
    expect(tokenTitle(tok(1, null, 'a', 3))).toBe('trained (no logprob)');
  });
  it('describes a token in full for the hover readout', () => {
    expect(tokenDescription(tok(1, -0.5, ' a\n', 7))).toBe('trained · id 7 · " a\\n" · logprob -0.5000 · p 0.607');
    expect(tokenDescription(tok(0, null, 'x', 3))).toBe('context · id 3 · "x"');
  });
});

describe('strip stats and chunks', () => {
  it('counts trained runs and the mean logprob', () => {
    const tokens = [tok(0), tok(1, -1), tok(1, -3), tok(0), tok(1, null), tok(0)];
    expect(stripStats(tokens)).toEqual({ total: 6, trained: 3, context: 3, meanLogprob: -2, trainedRuns: 2 });
    expect(stripStats([]).meanLogprob).toBeNull();
  });
  it('covers a strip with chunks of at most the size', () => {
    expect(chunkRanges(5, 2)).toEqual([
      [0, 2],
      [2, 4],
      [4, 5],
    ]);
    expect(chunkRanges(0, 2)).toEqual([]);
    expect(() => chunkRanges(3, 0)).toThrow(/positive/);
  });
  it('caps the visible count at the total', () => {
    expect(visibleTokenCount(100, 40)).toBe(40);
    expect(visibleTokenCount(30, 40)).toBe(30);
  });
  it('starts a prompt-hidden call strip a little before its output', () => {
    const tokens = [tok(0), tok(0), tok(0), tok(0), tok(1), tok(1)];
    expect(outputStart(tokens, 2)).toBe(2);
    expect(outputStart(tokens, 10)).toBe(0);
    expect(outputStart([tok(0), tok(0), tok(0)], 1)).toBe(2);
  });
});
