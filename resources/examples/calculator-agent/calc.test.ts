// Tests for the safe arithmetic evaluator: precedence, parentheses, signs, decimals, errors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calcToolReply, evaluate, formatNumber } from './calc';

const value = (s: string): number => {
  const r = evaluate(s);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe('evaluate', () => {
  it.each([
    ['2+3', 5],
    ['2+3*4', 14],
    ['(2+3)*4', 20],
    ['10-4-3', 3],
    ['24/4/2', 3],
    ['8/2*4', 16],
    ['2*(3+(4-1))', 12],
    ['-3+5', 2],
    ['2*-3', -6],
    ['--4', 4],
    ['+7', 7],
    ['1.5*2', 3],
    ['.5+.25', 0.75],
    ['3.', 3],
    [' 12 /  3 ', 4],
    ['7/2', 3.5],
  ])('%s = %d', (expr, expected) => {
    expect(value(expr)).toBe(expected);
  });

  it.each([
    ['', 'error: empty expression'],
    ['   ', 'error: empty expression'],
    ['2+', 'error: unexpected end of expression'],
    ['(2+3', "error: missing ')'"],
    ['2+3)', "error: unexpected ')'"],
    [')', "error: unexpected ')'"],
    ['2 3', "error: unexpected '3'"],
    ['2*(3 4)', "error: unexpected '4'"],
    ['4/0', 'error: division by zero'],
    ['4/(2-2)', 'error: division by zero'],
    ['1.2.3', "error: invalid number '1.2.3'"],
    ['.', "error: invalid number '.'"],
    ['2^3', "error: unexpected character '^'"],
    ['x+1', "error: unexpected character 'x'"],
    ['process.exit()', "error: unexpected character 'p'"],
    ['1'.repeat(201), 'error: expression too long'],
    ['('.repeat(40) + '1' + ')'.repeat(40), 'error: expression nested too deeply'],
  ])('%j -> %s', (expr, error) => {
    expect(evaluate(expr)).toEqual({ ok: false, error });
  });

  it('agrees with integer arithmetic on random a op b op c', () => {
    const op = fc.constantFrom('+', '-', '*');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99 }),
        op,
        fc.integer({ min: 0, max: 99 }),
        op,
        fc.integer({ min: 0, max: 99 }),
        (a, o1, b, o2, c) => {
          const apply = (x: number, o: string, y: number): number => (o === '+' ? x + y : o === '-' ? x - y : x * y);
          const expected = o2 === '*' && o1 !== '*' ? apply(a, o1, b * c) : apply(apply(a, o1, b), o2, c);
          expect(value(`${a}${o1}${b}${o2}${c}`)).toBe(expected);
        },
      ),
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const r = evaluate(s);
        expect(typeof r.ok).toBe('boolean');
        if (!r.ok) expect(r.error.startsWith('error: ')).toBe(true);
      }),
    );
  });
});

describe('formatNumber / calcToolReply', () => {
  it('prints integers plainly and decimals to at most 4 places', () => {
    expect(formatNumber(12)).toBe('12');
    expect(formatNumber(-0)).toBe('0');
    expect(formatNumber(3.5)).toBe('3.5');
    expect(formatNumber(10 / 3)).toBe('3.3333');
    expect(formatNumber(-0.00001)).toBe('0');
    expect(calcToolReply('7*6')).toBe('42');
    expect(calcToolReply('7*')).toBe('error: unexpected end of expression');
  });
});
