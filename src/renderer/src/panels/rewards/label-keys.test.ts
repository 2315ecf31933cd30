import { describe, expect, it } from 'vitest';
import { labelAction, type KeyLike } from './label-keys';

const key = (k: string, over: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  target: { tagName: 'DIV' },
  ...over,
});

describe('labelAction', () => {
  it('maps the shortcut keys, either case', () => {
    expect(['g', 'B', 'x', '1', '2', 's'].map((k) => labelAction(key(k)))).toEqual([
      'good',
      'bad',
      'clear',
      'prefer-left',
      'prefer-right',
      'skip',
    ]);
    expect(labelAction(key('q'))).toBeNull();
  });

  it('ignores keys typed into fields and keys with modifiers', () => {
    expect(labelAction(key('g', { target: { tagName: 'input' } }))).toBeNull();
    expect(labelAction(key('g', { target: { tagName: 'TEXTAREA' } }))).toBeNull();
    expect(labelAction(key('g', { target: { tagName: 'DIV', isContentEditable: true } }))).toBeNull();
    expect(labelAction(key('s', { ctrlKey: true }))).toBeNull();
    expect(labelAction(key('g', { target: null }))).toBe('good');
  });
});
