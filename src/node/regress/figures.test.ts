import { describe, expect, it } from 'vitest';
import { flattenFigures, lastJsonLine } from './figures';

describe('benchmark figures', () => {
  it('flattens numbers by path and turns number arrays into curves', () => {
    expect(
      flattenFigures({ a: 1, b: { c: 2.5, d: 'x', e: null, f: true }, g: [0.1, 0.2, 0.3], h: [{ i: 4 }], j: NaN }),
    ).toEqual([
      { figure: 'a', value: 1, curve: null },
      { figure: 'b.c', value: 2.5, curve: null },
      { figure: 'g', value: 0.3, curve: [0.1, 0.2, 0.3] },
      { figure: 'h.0.i', value: 4, curve: null },
    ]);
  });

  it('finds the summary line after log lines', () => {
    expect(lastJsonLine('starting\n{"bench":"merge","x":1}\n')).toEqual({ bench: 'merge', x: 1 });
    expect(lastJsonLine('{"a":1}\n{broken\nno summary')).toEqual({ a: 1 });
    expect(lastJsonLine('nothing')).toBeNull();
  });
});
