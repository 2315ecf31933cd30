import { describe, expect, it } from 'vitest';
import { vocabularyMismatch } from './teacher';

describe('vocabularyMismatch', () => {
  it('accepts the same pieces and names the first difference otherwise', () => {
    expect(vocabularyMismatch(['a', 'b'], ['a', 'b'])).toBeNull();
    expect(vocabularyMismatch(['a', 'b'], ['a', 'b', 'c'])).toMatch(/2 tokens, the teacher's 3/);
    expect(vocabularyMismatch(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(
      'token id 1 is "b" for the student, "x" for the teacher',
    );
  });
});
