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
  /** LoRA as the engine takes it: from a `--config` file, the --lora-* flags (loraOf), or the pinned plan. */
  lora: LoraOptionsSchema.optional(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;
export type WorkerConfigInput = z.input<typeof WorkerConfigSchema>;

export { WorkerConfigPatchSchema, type WorkerConfigPatch } from '../../src/shared/options/index';

/** The LoRA settings a config names: its `lora`, else the --lora-* options; refuses contradictions. */
export function loraOf(
  c: Partial<Pick<WorkerConfig, 'lora' | 'loraR' | 'loraAlpha' | 'loraDropout' | 'loraTargets' | 'trainMode'>>,
): WorkerConfig['lora'] {
  const flat = c.loraAlpha !== undefined || c.loraDropout !== undefined || c.loraTargets !== undefined;
  if (c.loraR === undefined) {
    if (flat && !c.lora) throw new Error('--lora-alpha/--lora-dropout/--lora-targets need --lora-r');
    return c.lora;
  }
  if (c.trainMode === 'full') throw new Error('--train-mode full contradicts the --lora-* settings');
  return {
    r: c.loraR,
    alpha: c.loraAlpha ?? 2 * c.loraR,
    ...(c.loraDropout !== undefined ? { dropout: c.loraDropout } : {}),
    ...(c.loraTargets !== undefined ? { targetModules: c.loraTargets.split(',') } : {}),
  };
}
