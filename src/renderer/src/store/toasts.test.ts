import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../shared/workbench-api';
import { addToast, dismissToast, errorMessage, MAX_TOASTS } from './toasts';

describe('toasts', () => {
  it('dedupes by message, caps, dismisses by id', () => {
    let l = addToast([], { id: 1, message: 'a', at: 0 });
    l = addToast(l, { id: 2, message: 'a', at: 1 });
    expect(l).toEqual([{ id: 2, message: 'a', at: 1 }]);
    for (let i = 3; i < 10; i++) l = addToast(l, { id: i, message: `m${i}`, at: i });
    expect(l).toHaveLength(MAX_TOASTS);
    expect(dismissToast(l, 9).map((t) => t.id)).toEqual([6, 7, 8]);
  });
  it('formats thrown things', () => {
    expect(errorMessage(new WorkbenchError('x', 'bad url'))).toBe('bad url');
    expect(errorMessage('s')).toBe('s');
    expect(errorMessage(42)).toBe('unknown error');
  });
});
