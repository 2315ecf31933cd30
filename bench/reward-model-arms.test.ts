import { describe, expect, it } from 'vitest';
import { armSpecs, type ArmsOptions } from './reward-model-arms';

const options: ArmsOptions = {
  arms: ['rm-kl', 'verifiable'],
  klCoef: 0.1,
  klSweep: [0.3],
  scaleRewards: 'group',
  scaleSweep: ['batch'],
  rmForm: 'standardized',
  formSweep: ['probability'],
  relabelEvery: 10,
  labelsPerRound: 32,
  labelPick: 'uncertain',
  ensemble: 3,
  ensembleK: 1,
  minutes: 15,
  clients: 6,
  evalEpisodes: 200,
  lr: 3.5e-4,
  lrEnd: 1e-4,
  threads: 1,
  seed: 1,
};

describe('armSpecs', () => {
  it('adds the KL, scale and form sweeps after the named arms, each on the labels of the reward model trained once', () => {
    const specs = armSpecs(options, 'base');
    expect(specs.map((s) => [s.name, s.klCoef, s.scale, s.form, s.runId])).toEqual([
      ['rm-kl', 0.1, 'group', 'standardized', 'base'],
      ['verifiable', 0, 'group', 'standardized', 'base'],
      ['rm-kl@0.3', 0.3, 'group', 'standardized', 'base'],
      ['rm-kl/batch', 0.1, 'batch', 'standardized', 'base'],
      ['rm-kl/probability', 0.1, 'group', 'probability', 'base'],
    ]);
  });
});
