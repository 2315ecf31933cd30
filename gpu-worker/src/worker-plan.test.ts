// The engine's training plan and the worker config: what `load` is sent, and how a plan is pinned
// so restarts and --resume load the same training setup.
import { describe, expect, it } from 'vitest';
import type { TrainingPlan } from '../../src/shared/engine-protocol';
import { engineLoadParams, pinnedTraining } from './worker-plan';
import { WorkerConfigSchema } from './worker-config';

const plan = (over: Partial<TrainingPlan> = {}): TrainingPlan => ({
  mode: 'lora',
  lora: { r: 16, alpha: 32, targetModules: null },
  activationCheckpointing: true,
  lr: 1e-5,
  reason: 'x',
  estimateBytes: 1,
  budgetBytes: 2,
  trainableParams: 3,
  breakdown: {},
  ...over,
});

describe('training plan in the worker config', () => {
  it('sends the plan hints and the given training setup to load', () => {
    const config = WorkerConfigSchema.parse({
      runDir: '/r',
      engineProcs: 2,
      activationCheckpointing: false,
      training: { microBatchTokens: 2048, klCoef: 0.1 },
    });
    expect(engineLoadParams(config, '/m')).toEqual({
      path: '/m',
      device: 'auto',
      dtype: 'auto',
      seed: 0,
      mode: 'auto',
      microBatchTokens: 2048,
      klCoef: 0.1,
      activationCheckpointing: false,
    });
  });

  it('pins the chosen mode, LoRA and checkpointing; LoRA settings given stay as given', () => {
    expect(pinnedTraining(plan(), undefined)).toEqual({
      trainMode: 'lora',
      activationCheckpointing: true,
      lora: { r: 16, alpha: 32 },
    });
    const given = { r: 8, alpha: 8, dropout: 0.1, targetModules: ['q_proj'] };
    expect(pinnedTraining(plan({ lora: { r: 8, alpha: 8, targetModules: ['q_proj'] } }), given)).toEqual({
      trainMode: 'lora',
      activationCheckpointing: true,
      lora: given,
    });
    expect(pinnedTraining(plan({ mode: 'full', lora: null, activationCheckpointing: false }), undefined)).toEqual({
      trainMode: 'full',
      activationCheckpointing: false,
    });
    const pinned = WorkerConfigSchema.parse({ runDir: '/r', ...pinnedTraining(plan(), undefined) });
    expect(engineLoadParams(pinned, '/m')).toMatchObject({
      mode: 'lora',
      lora: { r: 16, alpha: 32 },
      activationCheckpointing: true,
    });
  });
});
