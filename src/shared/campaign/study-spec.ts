// The study file (`kind: study`, docs/studies.md): a question, fixed arms (each a change to the base
// run, not a search), seeds per arm, the same budget for every arm (wall clock, capped further by
// updates or episodes), the metric, and the comparisons to report. A study runs through the
// campaign machinery: `armCampaign` is the campaign one arm's trials run as, and `studyCampaign`
// the campaign record the store, the Campaigns panel and `campaign status` show (one `arm` choice).
import { z } from 'zod';
import { TrainingConfigPatchSchema } from '../swarm-protocol';
import { checkRoles, ROLE_LAYOUTS } from './roles';
import { BaseRunSchema, CLIENT_KINDS, WorkersSchema, type CampaignSpec } from './spec';

const Name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'letters, digits, ".", "_" and "-" (up to 80)');

export const ArmSchema = z
  .object({
    /** What this arm is, for the report. */
    description: z.string().max(1000).default(''),
    task: z.string().min(1).max(1000).optional(),
    client: z.enum(CLIENT_KINDS).optional(),
    model: z.string().min(1).max(1000).optional(),
    clients: z.number().int().min(1).max(64).optional(),
    mix: z.number().min(0).max(1).optional(),
    /** Training options over the base's (merged key by key). */
    training: TrainingConfigPatchSchema.default({}),
    /** Seeds of this arm (default: the study's). */
    seeds: z.number().int().min(1).max(100).optional(),
    /** Held-out evaluation on this bundled task instead of the arm's own (a cocktail scored on one of its tasks). */
    evalTask: z.enum(['calculator-agent', 'guess-number']).optional(),
    /** Tasks played by several roles (proposer-solver): one worker per role, or one shared by every role. */
    roles: z.enum(ROLE_LAYOUTS).optional(),
  })
  .strict();
export type Arm = z.output<typeof ArmSchema>;

export const StudyBudgetSchema = z
  .object({
    /** Every trial (one arm, one seed) trains this long at most (wall clock), then its final evaluation. */
    minutes: z
      .number()
      .positive()
      .max(7 * 24 * 60),
    /** …or stops at this many updates (equal updates per arm). */
    updates: z.number().int().positive().optional(),
    /** …or at this many training episodes consumed by updates (equal episodes per arm). */
    episodes: z.number().int().positive().optional(),
  })
  .strict();
export type StudyBudget = z.output<typeof StudyBudgetSchema>;

export const StudyMetricSchema = z
  .object({
    metric: z.enum(['eval_success', 'eval_reward', 'train_reward']).default('eval_success'),
    /** `gain`: the final point minus the point before training (held-out gain). */
    summary: z.enum(['final', 'gain', 'auc', 'best']).default('final'),
    direction: z.enum(['maximize', 'minimize']).default('maximize'),
  })
  .strict();
export type StudyMetric = z.output<typeof StudyMetricSchema>;

export const StudySpecSchema = z
  .object({
    kind: z.literal('study'),
    name: Name,
    question: z.string().max(4000).default(''),
    /** The paper's claim (the report quotes it). */
    claim: z.string().max(4000).default(''),
    base: BaseRunSchema,
    arms: z.record(Name, ArmSchema).refine((a) => Object.keys(a).length >= 2, 'a study compares at least two arms'),
    seeds: z.number().int().min(1).max(100).default(3),
    budget: StudyBudgetSchema,
    metric: StudyMetricSchema.default({ metric: 'eval_success', summary: 'final', direction: 'maximize' }),
    /** Pairs [A, B] reported as A − B with a verdict (default: every arm against the first). */
    compare: z
      .array(z.tuple([Name, Name]))
      .max(100)
      .optional(),
    /** `all`: also the largest pairwise difference and the MAD over every arm (framework transparency). */
    dispersion: z.boolean().default(false),
    /** The effect size to state the budget for (in the metric's units; e.g. 0.025 for 2.5 pp). */
    effect: z.number().positive().default(0.05),
    workers: WorkersSchema.default({ local: 1, remote: [] }),
  })
  .strict();
export type StudySpec = z.output<typeof StudySpecSchema>;

export type StudyParseResult = { ok: true; spec: StudySpec } | { ok: false; errors: string[] };

/** The comparisons a study reports: the file's, or every arm against the first. */
export function comparisons(spec: StudySpec): [string, string][] {
  if (spec.compare) return spec.compare;
  const [first, ...rest] = Object.keys(spec.arms);
  return rest.map((a) => [a, first!]);
}

/** Problems zod cannot see: unknown arms in comparisons, a mix off the cocktail, nowhere to run. */
export function checkStudy(spec: StudySpec): string[] {
  const arms = Object.keys(spec.arms);
  const errors: string[] = [];
  for (const [i, [a, b]] of (spec.compare ?? []).entries()) {
    for (const x of [a, b]) if (!arms.includes(x)) errors.push(`compare.${i}: no arm named ${JSON.stringify(x)}`);
    if (a === b) errors.push(`compare.${i}: an arm compared with itself`);
  }
  for (const [name, arm] of Object.entries(spec.arms)) {
    const task = arm.task ?? spec.base.task;
    if ((arm.mix ?? spec.base.mix) !== undefined && task !== 'cocktail')
      errors.push(`arms.${name}: mix applies to the cocktail task only`);
    for (const e of checkRoles(task, spec.base.roles, arm.roles ?? spec.base.roleWorkers))
      errors.push(`arms.${name}: ${e}`);
  }
  if (spec.workers.local === 0 && spec.workers.remote.length === 0)
    errors.push('workers: no local workers and no remote ones: trials could run nowhere');
  return errors;
}

export function parseStudy(doc: unknown): StudyParseResult {
  const parsed = StudySpecSchema.safeParse(doc);
  if (!parsed.success)
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(study)'}: ${i.message}`),
    };
  const errors = checkStudy(parsed.data);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, spec: parsed.data };
}

/** Whether a parsed document declares itself a study. */
export const isStudyDoc = (doc: unknown): boolean =>
  typeof doc === 'object' && doc !== null && 'kind' in doc && doc.kind === 'study';

/** The budget times `scale` (a bigger box); the name says the scale so reports of different budgets stay apart. */
export function scaleStudy(spec: StudySpec, scale: number): StudySpec {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`--scale must be a positive number, not ${scale}`);
  if (scale === 1) return spec;
  const b = spec.budget;
  const round = (n: number | undefined): number | undefined =>
    n === undefined ? n : Math.max(1, Math.round(n * scale));
  const updates = round(b.updates);
  const episodes = round(b.episodes);
  return {
    ...spec,
    name: `${spec.name}-x${scale}`.slice(0, 80),
    budget: {
      minutes: b.minutes * scale,
      ...(updates !== undefined ? { updates } : {}),
      ...(episodes !== undefined ? { episodes } : {}),
    },
  };
}

/** Every arm on `seeds` seeds (a quick look, or a bigger box); the name says so. */
export function withSeeds(spec: StudySpec, seeds: number): StudySpec {
  if (!Number.isInteger(seeds) || seeds < 1 || seeds > 100) throw new Error(`--seeds must be 1…100, not ${seeds}`);
  return {
    ...spec,
    name: `${spec.name}-s${seeds}`.slice(0, 80),
    seeds,
    arms: Object.fromEntries(Object.entries(spec.arms).map(([k, a]) => [k, { ...a, seeds }])),
  };
}

const objectiveOf = (m: StudyMetric): CampaignSpec['objective'] => ({
  metric: m.metric,
  summary: m.summary === 'gain' ? 'final' : m.summary,
  direction: m.direction,
});

/** The campaign the store and the panel show for a study: one `arm` choice, every arm × seed a trial. */
export function studyCampaign(spec: StudySpec): CampaignSpec {
  const arms = Object.keys(spec.arms);
  return {
    name: spec.name,
    question: spec.question,
    base: spec.base,
    search: { arm: { choice: arms } },
    objective: objectiveOf(spec.metric),
    optimizer: { sampler: 'grid', seed: 0, pruner: { type: 'none', minResource: 1, reductionFactor: 3 } },
    budget: {
      trials: studyPlan(spec).length,
      minutesPerTrial: spec.budget.minutes,
      ...(spec.budget.updates !== undefined ? { stepsPerTrial: spec.budget.updates } : {}),
      ...(spec.budget.episodes !== undefined ? { episodesPerTrial: spec.budget.episodes } : {}),
    },
    seeds: spec.seeds,
    workers: spec.workers,
  };
}

/** The campaign one arm's trials run as: the base with the arm's changes. */
export function armCampaign(spec: StudySpec, arm: string): CampaignSpec {
  const a = spec.arms[arm];
  if (!a) throw new Error(`no arm named ${arm}`);
  const b = spec.base;
  const c = studyCampaign(spec);
  return {
    ...c,
    base: {
      ...b,
      task: a.task ?? b.task,
      client: a.client ?? b.client,
      model: a.model ?? b.model,
      clients: a.clients ?? b.clients,
      mix: a.mix ?? b.mix,
      roleWorkers: a.roles ?? b.roleWorkers,
      training: { ...b.training, ...a.training },
    },
  };
}

export const armSeeds = (spec: StudySpec, arm: string): number => spec.arms[arm]?.seeds ?? spec.seeds;

/** Every trial of a study in run order: seed-major, so a study stopped early has balanced arms. */
export function studyPlan(spec: StudySpec): { number: number; arm: string; seedIndex: number }[] {
  const arms = Object.keys(spec.arms);
  const most = Math.max(...arms.map((a) => armSeeds(spec, a)));
  const plan: { number: number; arm: string; seedIndex: number }[] = [];
  for (let k = 0; k < most; k++)
    for (const arm of arms) if (k < armSeeds(spec, arm)) plan.push({ number: plan.length, arm, seedIndex: k });
  return plan;
}
