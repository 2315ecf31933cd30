// Benchmark `reward-model`, part 5: the policy arms, each --minutes from the same warm start, and their
// held-out gains. Which arms (--arms, default all):
//   rm                 the reward model trained once, its score the only reward (no KL)
//   rm-kl              the same plus a KL penalty to the initial policy (--kl-coef)
//   rm-kl-relabel      rm-kl plus iterated labelling (--relabel-every K updates, --labels-per-round M)
//   rm-kl-relabel-ens  rm-kl-relabel with an ensemble of --ensemble E members, score mean − --ensemble-k·std
//   verifiable         the verifiable reward itself (the ceiling)
// --kl-sweep a,b,… adds rm-kl arms at those coefficients (how --kl-coef's default was chosen);
// --scale-sweep adds rm-kl arms that scale GRPO's advantages otherwise (the worker's --scale-rewards);
// --form-sweep adds rm-kl arms whose reward is the model's score in another form (standardized, probability).
import { join } from 'node:path';
import type { RewardModelService } from '../src/node/services/reward-model-service';
import type { Store } from '../src/node/store/types';
import type { RewardEnsembleRef, RewardModelRef } from '../src/shared/reward-model';
import type { WorkbenchEvent } from '../src/shared/workbench-api';
import type { RewardScale } from '../src/shared/advantages';
import type { RmForm } from '../resources/examples/calculator-rm/reward';
import type { EvalSummary } from '../src/node/eval';
import { relabelHooks, trainMembers, type LabelPick, type RmTrainOptions } from './reward-model-loop';
import { runArm, type ArmBudget, type ArmResult } from './reward-model-policy';
import { binomialSe } from './train-stats';

export const ARM_NAMES = ['rm', 'rm-kl', 'rm-kl-relabel', 'rm-kl-relabel-ens', 'verifiable'] as const;
export type ArmName = (typeof ARM_NAMES)[number];

export interface ArmsOptions extends ArmBudget {
  arms: readonly ArmName[];
  klCoef: number;
  klSweep: readonly number[];
  /** GRPO's divisor in every arm (the worker's --scale-rewards). */
  scaleRewards: RewardScale;
  scaleSweep: readonly RewardScale[];
  /** How the score enters the reward in every arm (calculator-rm's AGENTJET_RM_FORM). */
  rmForm: RmForm;
  formSweep: readonly RmForm[];
  relabelEvery: number;
  labelsPerRound: number;
  labelPick: LabelPick;
  ensemble: number;
  ensembleK: number;
}

export interface ArmSpec {
  name: string;
  kind: 'rm' | 'verifiable';
  klCoef: number;
  scale: RewardScale;
  form: RmForm;
  relabel: boolean;
  members: number;
  /** The store run whose labels the arm's reward models train on. */
  runId: string;
}

/** The arms to run, in order (the first one evaluates the warm start). */
export function armSpecs(o: ArmsOptions, baseRun: string): ArmSpec[] {
  const spec = (name: ArmName): ArmSpec => ({
    name,
    kind: name === 'verifiable' ? 'verifiable' : 'rm',
    klCoef: name === 'rm' || name === 'verifiable' ? 0 : o.klCoef,
    scale: o.scaleRewards,
    form: o.rmForm,
    relabel: name.includes('relabel'),
    members: name.endsWith('-ens') ? o.ensemble : 1,
    runId: name.includes('relabel') ? `${baseRun}-${name}` : baseRun,
  });
  // A sweep arm is the rm-kl arm with one setting varied.
  const variant = (name: string, vary: Partial<Pick<ArmSpec, 'klCoef' | 'scale' | 'form'>>): ArmSpec => ({
    ...spec('rm-kl'),
    name,
    ...vary,
  });
  const sweep = o.klSweep.map((klCoef) => variant(`rm-kl@${klCoef}`, { klCoef }));
  const scales = o.scaleSweep.map((scale) => variant(`rm-kl/${scale}`, { scale }));
  const forms = o.formSweep.map((form) => variant(`rm-kl/${form}`, { form }));
  return [...o.arms.map(spec), ...sweep, ...scales, ...forms];
}

export interface ArmOutcome {
  spec: ArmSpec;
  result: ArmResult;
  gainPp: number;
  gainSe: number;
  /** Labels the arm's reward models were trained on (0 for the verifiable reward). */
  labels: number;
  rounds: number;
  /** Reward-model versions the arm deployed, in order (an ensemble's first: all members; a round's: its last). */
  versions: number[];
}

export interface ArmsContext {
  store: Store;
  /** The run the first labels and the reward model trained once belong to. */
  baseRun: string;
  service: RewardModelService;
  events: WorkbenchEvent[];
  runDir: string;
  /** The reward model trained once (the rm and rm-kl arms'). */
  rm: RewardModelRef;
  /** Labels it was trained on. */
  baseLabels: number;
  rmOptions: RmTrainOptions;
  log: (line: string) => void;
}

export function gain(r: ArmResult, warm: EvalSummary): { pp: number; se: number } {
  const se = Math.sqrt(
    binomialSe(r.final.successRate, r.final.episodes) ** 2 + binomialSe(warm.successRate, warm.episodes) ** 2,
  );
  return { pp: 100 * (r.final.successRate - warm.successRate), se: 100 * se };
}

export async function runArms(o: ArmsOptions, c: ArmsContext): Promise<{ warm: EvalSummary; arms: ArmOutcome[] }> {
  let warm: EvalSummary | null = null;
  const outcomes: ArmOutcome[] = [];
  for (const spec of armSpecs(o, c.baseRun)) {
    c.log('');
    if (spec.relabel && spec.members === 1) {
      // The arm's run starts from the reward model trained once: the label queue scores with it first.
      const r = c.store.getRewardModel(c.baseRun, c.rm.version ?? 1);
      const record = { version: r.version, folder: r.folder, sha256: r.sha256, createdAt: r.createdAt };
      c.store.putRewardModel(spec.runId, { ...record, manifest: r.manifest });
    }
    let ref: RewardModelRef | RewardEnsembleRef | undefined = spec.kind === 'rm' ? c.rm : undefined;
    const versions: number[] = ref ? [c.rm.version ?? 1] : [];
    if (spec.members > 1) {
      c.log(`  [${spec.name}] training an ensemble of ${spec.members} reward models on the first labels`);
      const t = await trainMembers(c.service, c.events, spec.runId, c.rmOptions, spec.members, o.ensembleK);
      ref = t.ref;
      versions.splice(0, 1, ...t.rows.map((r) => r.version));
    }
    const relabel = spec.relabel
      ? relabelHooks({
          store: c.store,
          service: c.service,
          events: c.events,
          runId: spec.runId,
          every: o.relabelEvery,
          perRound: o.labelsPerRound,
          pick: o.labelPick,
          members: spec.members,
          stdPenalty: o.ensembleK,
          rm: c.rmOptions,
          log: (l) => c.log(`  [${spec.name}] ${l}`),
        })
      : null;
    const result = await runArm({
      arm: spec.kind,
      name: spec.name,
      minutes: o.minutes,
      clients: o.clients,
      evalEpisodes: o.evalEpisodes,
      lr: o.lr,
      lrEnd: o.lrEnd,
      threads: o.threads,
      seed: o.seed,
      runDir: join(c.runDir, `arm-${spec.name.replace(/[@/]/g, '-')}`),
      warmEval: warm === null,
      klCoef: spec.klCoef,
      scaleRewards: spec.scale,
      rmForm: spec.form,
      log: c.log,
      ...(ref ? { rm: ref } : {}),
      ...(relabel ? { hooks: relabel.hooks } : {}),
    });
    warm ??= result.warm!;
    const g = gain(result, warm);
    c.log(
      `  [${spec.name}] held-out ${(100 * result.final.successRate).toFixed(1)}% after ${result.updates} updates: ` +
        `${g.pp >= 0 ? '+' : ''}${g.pp.toFixed(1)} pp ± ${g.se.toFixed(1)} vs the warm start`,
    );
    const loop = relabel?.loop() ?? null;
    const rounds = loop?.rounds ?? [];
    outcomes.push({
      spec,
      result,
      gainPp: g.pp,
      gainSe: g.se,
      labels: spec.kind === 'verifiable' ? 0 : c.baseLabels + (loop?.labels ?? 0),
      rounds: rounds.length,
      versions: [...versions, ...rounds.flatMap((r) => (r.version === null ? [] : [r.version]))],
    });
  }
  return { warm: warm!, arms: outcomes };
}
