// What the engine loads for a worker config (model folder, placement, the served chat template,
// the training setup), and the config fields that pin the engine's first plan for later loads.
import type { LoadParams, TrainingPlan } from '../../src/shared/engine-protocol';
import { engineTextSettings } from '../../src/shared/tool-parsers/names';
import { modelParsers, servedTemplate } from './engine/model-family';
import type { WorkerConfig } from './worker-config';

/** What the engine loads: the model, its placement, and the training setup the plan starts from. */
export function engineLoadParams(config: WorkerConfig, modelPath: string): LoadParams {
  const chatTemplate = servedTemplate(modelPath, config);
  const text = engineTextSettings(modelParsers(modelPath, config).choice);
  return {
    path: modelPath,
    device: config.device,
    dtype: config.dtype,
    seed: config.seed,
    mode: config.trainMode,
    microBatchTokens: config.training.microBatchTokens,
    klCoef: config.training.klCoef,
    ...(config.threads ? { threads: config.threads } : {}),
    ...(chatTemplate !== null ? { chatTemplate } : {}),
    ...(text.decodeSpecialTokens ? { decodeSpecialTokens: true } : {}),
    ...(text.toolArgumentsAsText ? { toolArgumentsAsText: true } : {}),
    ...(config.lora ? { lora: config.lora } : {}),
    ...(config.activationCheckpointing !== undefined
      ? { activationCheckpointing: config.activationCheckpointing }
      : {}),
    ...(trainerOnly(config) ? { inferenceCopy: false } : {}),
  };
}

/**
 * Whether the trainer group only trains: rollout replicas generate and its engine is FSDP ranks, so rank 0
 * keeps no full inference copy (the weight sync gathers from the shards); calls then wait for a replica.
 */
export const trainerOnly = (c: Pick<WorkerConfig, 'rolloutReplicas' | 'engineProcs' | 'nnodes'>): boolean =>
  c.rolloutReplicas > 0 && (c.engineProcs > 1 || c.nnodes > 1);

/** The worker-config fields that reproduce the engine's plan on every later load. */
export function pinnedTraining(
  plan: TrainingPlan,
  given: WorkerConfig['lora'],
): Pick<WorkerConfig, 'trainMode' | 'activationCheckpointing' | 'lora'> {
  const chosen = plan.lora
    ? {
        r: plan.lora.r,
        alpha: plan.lora.alpha,
        ...(plan.lora.targetModules ? { targetModules: plan.lora.targetModules } : {}),
      }
    : undefined;
  const lora = given ?? chosen; // LoRA settings given (dropout included) stay as given
  return { trainMode: plan.mode, activationCheckpointing: plan.activationCheckpointing, ...(lora ? { lora } : {}) };
}
