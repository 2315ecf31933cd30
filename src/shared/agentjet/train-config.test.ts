import { describe, expect, it } from 'vitest';
import { TRAINING_DEFAULTS, TrainingConfigSchema } from '../swarm-protocol';
import { leaves, mapAgentJetConfig } from './train-config';

const cfg = TrainingConfigSchema.parse({});

describe('mapAgentJetConfig', () => {
  it('flattens leaves and applies what has a counterpart, ignoring the rest by path', () => {
    expect(leaves({ a: { b: 1, c: [1, 2] }, d: null })).toEqual([
      ['a.b', 1],
      ['a.c', [1, 2]],
      ['d', null],
    ]);
    const doc = {
      ajet: {
        swarm_mode_sample_collection_method: 'rollout_until_finish_enough_episodes',
        data: { train_batch_size: 4, max_prompt_length: 3000 },
        rollout: { num_repeat: 3, top_p: 0.95, max_response_length_in_one_turn: 100_000 },
        trainer_common: {
          algorithm: { adv_estimator: 'rloo' },
          optim: { lr: '1.0e-06', grad_clip: 20 },
          use_kl_loss: false,
          kl_loss_coef: 0.01,
          save_freq: 5,
        },
        model: { path: '/models/x' },
      },
    };
    const out = mapAgentJetConfig(doc, cfg);
    // "enough episodes" counts train_batch_size × num_repeat episodes.
    expect(out.patch).toEqual({
      strategy: 'C1',
      batch: 12,
      groupSize: 3,
      topP: 0.95,
      defaultMaxTokens: TRAINING_DEFAULTS.maxTokensLimit,
      algo: 'rloo',
      lr: 1e-6,
      maxGradNorm: 20,
      klCoef: 0,
      checkpointEvery: 5,
    });
    expect(out.ignored).toEqual(['ajet.data.max_prompt_length', 'ajet.model.path']);
  });

  it('names values it cannot take', () => {
    const out = mapAgentJetConfig(
      { ajet: { swarm_mode_sample_collection_method: 'whatever', rollout: { num_repeat: -1, temperature: 'hot' } } },
      cfg,
    );
    expect(out.patch).toEqual({});
    expect(out.ignored.map((p) => p.split(' ')[0])).toEqual([
      'ajet.swarm_mode_sample_collection_method',
      'ajet.rollout.num_repeat',
      'ajet.rollout.temperature',
    ]);
    expect(out.ignored.every((p) => p.includes('('))).toBe(true);
  });
});
