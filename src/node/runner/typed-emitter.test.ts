// Tests for the typed emitter: delivery, disposable subscriptions, listener errors contained.
import { describe, expect, it, vi } from 'vitest';
import { TypedEmitter } from './typed-emitter';

interface Events {
  a: { n: number };
  b: string;
}

describe('TypedEmitter', () => {
  it('delivers to current listeners; dispose() and clear() release them', () => {
    const e = new TypedEmitter<Events>();
    const got: number[] = [];
    const sub = e.on('a', ({ n }) => got.push(n));
    e.on('b', () => got.push(-1));
    e.emit('a', { n: 1 });
    sub.dispose();
    e.emit('a', { n: 2 });
    expect(got).toEqual([1]);
    expect(e.listenerCount).toBe(1);
    e.clear();
    expect(e.listenerCount).toBe(0);
  });

  it('a throwing listener does not stop the others', () => {
    const e = new TypedEmitter<Events>();
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const got: string[] = [];
    e.on('b', () => {
      throw new Error('bad listener');
    });
    e.on('b', (s) => got.push(s));
    e.emit('b', 'x');
    expect(got).toEqual(['x']);
    expect(spy).toHaveBeenCalledOnce();
    spy.mockRestore();
  });
});
