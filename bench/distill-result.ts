// Benchmark `distill`: one arm's result as a file (<run-dir>/<arm>/result.json), so a later run with
// --reuse-rl can read a finished RL arm back instead of training it again — only when it ran with the
// same settings, since the distillation arm is compared against its curve.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { MergeMode } from '../src/shared/timeline/types';

/** The settings an arm's curve depends on (besides its teacher). */
export interface ArmSettingsInput {
  minutes: number;
  evalEveryMinutes: number;
  evalEpisodes: number;
  clients: number;
  batch: number;
  groupSize: number;
  lr: number;
  lrEnd: number;
  threads: number;
  seed: number;
  merge: MergeMode;
}

const CurvePointSchema = z.object({ minutes: z.number(), success: z.number(), episodes: z.number() });
export type CurvePoint = z.infer<typeof CurvePointSchema>;

const DistillArmResultSchema = z.object({
  name: z.string(),
  /** Held-out success over training time: 0 (the start), every --eval-every minutes, the end. */
  curve: z.array(CurvePointSchema).min(2),
  updates: z.number(),
  trainEpisodes: z.number(),
  /** Mean seconds of its steps (the update, with the teacher's scoring where it was not done ahead). */
  stepSeconds: z.number().optional(),
  /** Distillation: the mean fraction of a step's teacher sequences scored while the student generated. */
  prefetched: z.number().optional(),
  /** Distillation: the mean fraction of a step's samples that trained (--distill-keep). */
  kept: z.number().optional(),
  /** The worker's folder (its last checkpoint: what a resumed worker serves). */
  workerDir: z.string(),
  /** The settings it ran with (a reused arm is compared only with a run of the same settings). */
  settings: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type DistillArmResult = z.infer<typeof DistillArmResultSchema>;

/** What an arm's result depends on, besides its teacher: a reused arm must match these. */
export function armSettings(o: ArmSettingsInput): Record<string, string | number> {
  return {
    minutes: o.minutes,
    evalEveryMinutes: o.evalEveryMinutes,
    evalEpisodes: o.evalEpisodes,
    clients: o.clients,
    batch: o.batch,
    groupSize: o.groupSize,
    lr: o.lr,
    lrEnd: o.lrEnd,
    threads: o.threads,
    seed: o.seed,
    merge: o.merge,
  };
}

const RESULT_FILE = 'result.json';

/**
 * A finished arm's result from an earlier run in `runDir` (written by `runDistillArm`), if there is one
 * with exactly these settings; otherwise null and a line saying why.
 */
export function finishedArm(
  o: ArmSettingsInput & { name: string; runDir: string; log: (line: string) => void },
): DistillArmResult | null {
  const file = join(o.runDir, RESULT_FILE);
  if (!existsSync(file)) return null;
  let json: unknown = null;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // not JSON: refused below like any other shape
  }
  const parsed = DistillArmResultSchema.safeParse(json);
  if (!parsed.success) {
    o.log(`  [${o.name}] ${file} is not an arm's result (${parsed.error.message}); running the arm again`);
    return null;
  }
  const want = armSettings(o);
  const differ = Object.keys(want).filter((k) => parsed.data.settings[k] !== want[k]);
  if (differ.length > 0) {
    o.log(`  [${o.name}] ${file} ran with other settings (${differ.join(', ')}); running the arm again`);
    return null;
  }
  return parsed.data;
}

/** Writes a finished arm's result where `finishedArm` looks for it. */
export function writeArmResult(runDir: string, result: DistillArmResult): void {
  writeFileSync(join(runDir, RESULT_FILE), `${JSON.stringify(result, null, 1)}\n`);
}

/** The distillation arm's settings that may differ from RL's (each non-default one names its folder). */
export interface DistillVariant {
  /** Tasks per update. */
  batch: number;
  lr: number;
  topK: number;
  groupSize: number;
  weight: number;
  /** The fraction of a step's samples that trains (--distill-keep). */
  keep: number;
}

/**
 * The distillation arm's folder: `distill`, then `-b<B>-lr<LR>-k<K>-g<G>-w<W>-keep<F>` for each setting that
 * differs from the default, so arms of other settings against one reused RL run never overwrite each other.
 */
export function distillArmDir(v: DistillVariant, defaults: DistillVariant): string {
  const parts: [string, keyof DistillVariant][] = [
    ['b', 'batch'],
    ['lr', 'lr'],
    ['k', 'topK'],
    ['g', 'groupSize'],
    ['w', 'weight'],
    ['keep', 'keep'],
  ];
  return `distill${parts.map(([tag, key]) => (v[key] === defaults[key] ? '' : `-${tag}${v[key]}`)).join('')}`;
}
