// Unit tests of the word form of a proposed expression.
import { describe, expect, it } from 'vitest';
import { evaluate } from '../calculator-agent/calc';
import { normalise, wordProblem } from './word-problem';

describe('wordProblem', () => {
  it('tells each covered shape in the calculator phrasing, with the operands in order', () => {
    expect(wordProblem('14 + 6')?.question).toMatch(
      /^\w+ has 14 \w+\. \w+ buys 6 more\. How many \w+ does \w+ have now\?$/,
    );
    expect(wordProblem('14 - 6')).toMatchObject({ template: 'word-sub' });
    expect(wordProblem('4 * 7')?.question).toMatch(/^There are 4 boxes with 7 \w+ in each box\./);
    expect(wordProblem('18 / 6')?.question).toMatch(/shares 18 \w+ equally among 6 friends/);
    expect(wordProblem('3 * 4 + 5')).toMatchObject({ template: 'word-mul-add' });
    expect(wordProblem('3*4-5')).toMatchObject({ template: 'word-mul-sub' });
    expect(wordProblem('3 + 4 - 5')).toMatchObject({ template: 'word-add-sub' });
  });
  it('reads the same for the same expression, whatever its spacing or outer brackets', () => {
    expect(wordProblem('(12 * 3)')).toEqual(wordProblem('12*3'));
    expect(normalise(' ((2 + 3)) ')).toBe('2+3');
    expect(normalise('(2 + 3) * (4 + 1)')).toBe('(2+3)*(4+1)');
  });
  it('has no word form for a negative or fractional answer, or an uncovered shape', () => {
    expect(wordProblem('5 - 9')).toBeUndefined();
    expect(wordProblem('7 / 2')).toBeUndefined();
    expect(wordProblem('2 * 3 - 9')).toBeUndefined();
    expect(wordProblem('3 * (4 + 5)')).toBeUndefined();
    expect(wordProblem('2.5 + 1')).toBeUndefined();
  });
  it('states a problem whose answer is the expression value (every covered shape over small operands)', () => {
    for (const e of ['9+4', '9-4', '9*4', '8/4', '2*3+4', '5*3-4', '2+9-4']) {
      const value = evaluate(e);
      expect(value.ok && value.value >= 0).toBe(true);
      expect(wordProblem(e)?.question).toContain(e.match(/\d+/)![0]);
    }
  });
});
