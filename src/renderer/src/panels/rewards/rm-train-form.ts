// The reward-model training form, as text fields → the settings sent to the engine: the loss from
// its select, and epochs, learning rate and held-out share checked before a request is made.

export type Loss = 'pairwise' | 'pointwise' | 'both';

export interface TrainFields {
  loss: Loss;
  epochs: string;
  lr: string;
  heldout: string;
}

export interface TrainSettings {
  loss: Loss;
  epochs: number;
  lr: number;
  heldout: number;
}

export const TRAIN_DEFAULTS: TrainFields = { loss: 'pairwise', epochs: '1', lr: '1e-4', heldout: '0.2' };

/** The loss a select value names (pairwise for anything else). */
export function lossOf(value: string): Loss {
  return value === 'pointwise' ? 'pointwise' : value === 'both' ? 'both' : 'pairwise';
}

/** The settings, or why they cannot be sent (epochs and lr positive, held-out share in [0, 0.9)). */
export function parseTrainFields(
  fields: TrainFields,
): { ok: true; settings: TrainSettings } | { ok: false; error: string } {
  const n = { epochs: Number(fields.epochs), lr: Number(fields.lr), heldout: Number(fields.heldout) };
  if (!(n.epochs > 0) || !(n.lr > 0) || !(n.heldout >= 0 && n.heldout < 0.9))
    return { ok: false, error: 'epochs and learning rate must be positive, held-out share in [0, 0.9)' };
  return { ok: true, settings: { loss: fields.loss, ...n } };
}
