// The incremental JSON minifier: exact minified output, valid repairs of every prefix, strictness.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonMinifier, minifyJson } from './json-minify';

/** JSON text of `value` with random insignificant whitespace, as a model might write it. */
function spaced(value: unknown, ws: () => string): string {
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => spaced(v, ws)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (value !== null && typeof value === 'object') {
    const parts = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}${ws()}:${ws()}${spaced(v, ws)}`);
    return `{${ws()}${parts.join(`${ws()},${ws()}`)}${ws()}}`;
  }
  return JSON.stringify(value);
}

const wsArb = fc.array(fc.constantFrom('', ' ', '\n', '\t', '  '), { minLength: 64, maxLength: 64 });

describe('JsonMinifier', () => {
  it('minifies to exactly JSON.stringify of the value, whatever the whitespace', () => {
    fc.assert(
      fc.property(fc.jsonValue(), wsArb, (value, spaces) => {
        let i = 0;
        const text = spaced(value, () => spaces[i++ % spaces.length]!);
        expect(minifyJson(text)).toBe(JSON.stringify(value));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a prefix of the minified text at every point and repairs any prefix into valid JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), wsArb, fc.nat(), (value, spaces, cutSeed) => {
        let i = 0;
        const text = spaced(value, () => spaces[i++ % spaces.length]!);
        const full = JSON.stringify(value);
        const chars = [...text];
        const cut = cutSeed % (chars.length + 1);
        const m = new JsonMinifier();
        for (const ch of chars.slice(0, cut)) m.feed(ch);
        expect(full.startsWith(m.out)).toBe(true);
        expect(() => JSON.parse(m.out + m.repair())).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it('keeps strings and numbers as written and refuses what JSON.parse refuses', () => {
    expect(minifyJson('{ "a" : "x\\u0041\\n y" , "b" : [ 1.50 , -0 , 1e3 ] }')).toBe(
      '{"a":"x\\u0041\\n y","b":[1.50,-0,1e3]}',
    );
    for (const bad of ['{"a":1,}', '[01]', '{"a" 1}', '"\u0001"', '{"a":tru}', '[1 2]', '{a:1}', '"\\x"', '1.', '-']) {
      expect(minifyJson(bad), bad).toBeNull();
      expect(() => JSON.parse(bad), bad).toThrow();
    }
  });

  it('repairs a value cut inside a key, after a colon, inside a number, or after a syntax error', () => {
    const repaired = (text: string): string => {
      const m = new JsonMinifier();
      for (const ch of text) if (m.feed(ch) === 'error') break;
      return m.out + m.repair();
    };
    expect(repaired('{"expr')).toBe('{"expr":null}');
    expect(repaired('{"a": ')).toBe('{"a":null}');
    expect(repaired('{"a": 12')).toBe('{"a":12}');
    expect(repaired('{"a": [1, ')).toBe('{"a":[1]}');
    expect(repaired('{"a": "2+')).toBe('{"a":"2+"}');
    expect(repaired('{"a": 1, "b"')).toBe('{"a":1,"b":null}');
    expect(repaired('{"a": 1 x')).toBe('{"a":1}');
  });
});
