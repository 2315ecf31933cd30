import { describe, expect, it } from 'vitest';
import { toggleCompare } from './compare-selection';

describe('toggleCompare', () => {
  it('adds, removes, and keeps the two latest picks', () => {
    let s = toggleCompare([], 'a');
    s = toggleCompare(s, 'b');
    expect(s).toEqual(['a', 'b']);
    s = toggleCompare(s, 'c');
    expect(s).toEqual(['b', 'c']);
    expect(toggleCompare(s, 'b')).toEqual(['c']);
  });
});
