import { describe, expect, it } from 'vitest';
import { parseFlags } from './flags';

describe('parseFlags', () => {
  it('reads --key value and --key=value into camelCase', () => {
    expect(parseFlags(['--tasks-per-step', '8', '--lr=1e-4', '--model', '/m'])).toEqual({
      tasksPerStep: '8',
      lr: '1e-4',
      model: '/m',
    });
  });
  it('rejects stray words and flags without a value', () => {
    expect(() => parseFlags(['demo'])).toThrow(/unexpected argument: demo/);
    expect(() => parseFlags(['--steps'])).toThrow(/--steps needs a value/);
    expect(() => parseFlags(['--steps', '--lr', '1'])).toThrow(/--steps needs a value/);
  });
});
