import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatJsonPath, tooDeepAt } from './json-depth';

/** The nesting depth of a parsed value (the reference the scan must agree with). */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (typeof v === 'object' && v !== null) return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

const nest = (levels: number, leaf = '"x"'): string => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);

describe('tooDeepAt', () => {
  it('agrees with the depth of the parsed value on any JSON (strings with brackets, quotes and escapes included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(tooDeepAt(text, limit) === null).toBe(depthOf(value) <= limit);
      }),
      { numRuns: 500 },
    );
  });

  it('handles strings full of brackets, escaped quotes and backslashes', () => {
    const text = JSON.stringify({ s: 'a\\"[[[{{{', t: ['\\', '\\\\"', '{'], u: { v: '"]]]}}}' } });
    expect(tooDeepAt(text, 2)).toBeNull();
    expect(tooDeepAt(text, 1)).toEqual(['t']);
  });

  it('names the field a deep value sits in, with its indices', () => {
    const body = `{"model":"m","messages":[{"role":"user","content":"[[["}],"tools":[{"type":"function"},{"type":"function","function":{"name":"f","parameters":${nest(1000)}}}]}`;
    const path = tooDeepAt(body, 64);
    expect(path?.slice(0, 5)).toEqual(['tools', 1, 'function', 'parameters', 'a']);
    expect(path).toHaveLength(64);
    expect(formatJsonPath(path!)).toBe('tools[1].function.parameters.a.a…');
    expect(tooDeepAt(body, 1010)).toBeNull();
  });

  it('scans a megabyte-deep text without a stack', () => {
    const text = '['.repeat(1 << 20) + ']'.repeat(1 << 20);
    expect(tooDeepAt(text, 64)).toHaveLength(64);
  });

  it('formats keys that are not identifiers as quoted, and short paths whole', () => {
    expect(formatJsonPath(['input', 2, 'arguments'])).toBe('input[2].arguments');
    expect(formatJsonPath(['a b', 'c'])).toBe('["a b"].c');
    expect(formatJsonPath([0, 0])).toBe('[0][0]');
  });
});
