// The schemas derived from the option declarations (declarations.ts): the training config (every
// field defaulted), its patch (PATCH /swarm/v1/config), the worker's start-up settings, and the
// presets commands apply on top of the declared defaults.
import { z } from 'zod';
import { LoraOptionsSchema } from '../engine-protocol';
import { TRAINING_OPTIONS, WORKER_OPTIONS } from './declarations';
import { defaultsOf, formShape, fromFlags, schemasOf, schemasWithDefaults } from './spec';

export {
  AlgoSchema,
  StrategySchema,
  TRAINING_OPTIONS,
  WORKER_OPTIONS,
  type Strategy,
  type TrainingOptionKey,
  type WorkerOptionKey,
} from './declarations';
export * from './spec';

/** Every training setting's default. */
export const TRAINING_DEFAULTS = defaultsOf(TRAINING_OPTIONS);

/** The training settings; a field left out takes its default. */
export const TrainingConfigSchema = z.object(schemasWithDefaults(TRAINING_OPTIONS));
export type TrainingConfig = z.output<typeof TrainingConfigSchema>;

/** A patch of training settings (PATCH /swarm/v1/config): only the fields given change. */
export const TrainingConfigPatchSchema = z.object(schemasOf(TRAINING_OPTIONS)).partial().strict();
export type TrainingConfigPatch = z.infer<typeof TrainingConfigPatchSchema>;

/** The worker's start-up settings, defaulted (the rest of WorkerConfig — run dir, LoRA — is added where it is used). */
export const WorkerSettingsShape = schemasWithDefaults(WORKER_OPTIONS);

/** Worker settings as given (nothing defaulted): a `--config` file, flags, a workbench launch. */
export const WorkerSettingsPatchShape = z.object(schemasOf(WORKER_OPTIONS)).partial().shape;

/**
 * A worker configuration as given, nothing defaulted: a `--config` file of `agentjet worker`, what the
 * workbench hands a local worker, parsed flags. The worker fills in the defaults.
 */
export const WorkerConfigPatchSchema = z
  .object({
    ...WorkerSettingsPatchShape,
    runDir: z.string().min(1).optional(),
    training: TrainingConfigPatchSchema.optional(),
    lora: LoraOptionsSchema.optional(),
  })
  .strict();
export type WorkerConfigPatch = z.infer<typeof WorkerConfigPatchSchema>;

/** The training fields of the workbench's connect form, keyed by camelCase flag name (`maxTokens`). */
export const ConnectTrainingShape = formShape(TRAINING_OPTIONS);
/** The worker (engine) fields of the connect form: training mode, LoRA, engine ranks. */
export const ConnectWorkerShape = formShape(WORKER_OPTIONS);
/** The worker settings named by connect-form fields. */
export const workerFromFields = (fields: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const labelled = Object.entries(WORKER_OPTIONS).flatMap(([k, o]) =>
    'label' in o ? [k as keyof typeof WORKER_OPTIONS] : [],
  );
  return fromFlags(WORKER_OPTIONS, fields, labelled);
};

/** The training settings named by connect-form (or flag) fields. */
export const trainingFromFields = (fields: Readonly<Record<string, unknown>>): TrainingConfigPatch =>
  TrainingConfigPatchSchema.parse(fromFlags(TRAINING_OPTIONS, fields));
