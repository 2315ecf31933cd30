// The worker's configuration: what `agentjet worker` flags and `--config` files set and
// `<run-dir>/config.json` records (never the tokens). Its options are declared once in
// src/shared/options/declarations.ts; the training part can also be changed at run time by an admin.
import { z } from 'zod';
import { LoraOptionsSchema } from '../../src/shared/engine-protocol';
import { TrainingConfigSchema, WorkerSettingsShape } from '../../src/shared/options/index';

export const WorkerConfigSchema = z.object({
  ...WorkerSettingsShape,
  runDir: z.string().min(1),
  training: TrainingConfigSchema.default(TrainingConfigSchema.parse({})),
  lora: LoraOptionsSchema.optional(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;
export type WorkerConfigInput = z.input<typeof WorkerConfigSchema>;

export { WorkerConfigPatchSchema, type WorkerConfigPatch } from '../../src/shared/options/index';
