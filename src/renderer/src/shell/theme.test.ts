import { describe, expect, it } from 'vitest';
import { readTheme } from './theme';

describe('readTheme', () => {
  it('is dark unless light was chosen', () => {
    expect(readTheme({ getItem: () => null })).toBe('dark');
    expect(readTheme({ getItem: () => 'weird' })).toBe('dark');
    expect(readTheme({ getItem: () => 'light' })).toBe('light');
  });
});
