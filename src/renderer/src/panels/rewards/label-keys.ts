// Keyboard shortcuts for fast labelling (pure): the key → labelling action map shared by the inspector's
// label bar and the label queue, and whether a key event belongs to a text field instead.

export type LabelAction = 'good' | 'bad' | 'clear' | 'prefer-left' | 'prefer-right' | 'skip';

export const LABEL_KEYS: Readonly<Record<string, LabelAction>> = {
  g: 'good',
  b: 'bad',
  x: 'clear',
  '1': 'prefer-left',
  '2': 'prefer-right',
  s: 'skip',
};

/** The shortcut help line, in key order. */
export const LABEL_KEY_HELP: readonly [string, string][] = [
  ['G', 'good'],
  ['B', 'bad'],
  ['1 / 2', 'prefer left / right'],
  ['S', 'skip'],
  ['X', 'clear my label'],
];

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The focused element's tag name and editability. */
  target: { tagName?: string; isContentEditable?: boolean } | null;
}

/** The action of a key press, or null (modifiers held, typing in a field, or not a shortcut). */
export function labelAction(e: KeyLike): LabelAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const tag = e.target?.tagName?.toUpperCase();
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || e.target?.isContentEditable) return null;
  return LABEL_KEYS[e.key.toLowerCase()] ?? null;
}
