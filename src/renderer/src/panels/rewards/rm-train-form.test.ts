import { describe, expect, it } from 'vitest';
import { lossOf, parseTrainFields, TRAIN_DEFAULTS } from './rm-train-form';

describe('reward-model training form', () => {
  it('parses the defaults', () => {
    expect(parseTrainFields(TRAIN_DEFAULTS)).toEqual({
      ok: true,
      settings: { loss: 'pairwise', epochs: 1, lr: 1e-4, heldout: 0.2 },
    });
  });

  it('refuses non-positive or non-numeric epochs and lr, and a held-out share outside [0, 0.9)', () => {
    const error = 'epochs and learning rate must be positive, held-out share in [0, 0.9)';
    for (const bad of [{ epochs: '0' }, { epochs: 'x' }, { lr: '-1' }, { heldout: '0.9' }, { heldout: '-0.1' }])
      expect(parseTrainFields({ ...TRAIN_DEFAULTS, ...bad })).toEqual({ ok: false, error });
    expect(parseTrainFields({ ...TRAIN_DEFAULTS, heldout: '0' }).ok).toBe(true);
  });

  it('reads the loss select', () => {
    expect(lossOf('pointwise')).toBe('pointwise');
    expect(lossOf('both')).toBe('both');
    expect(lossOf('pairwise')).toBe('pairwise');
    expect(lossOf('other')).toBe('pairwise');
  });
});
