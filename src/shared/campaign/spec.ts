// The campaign file (YAML or JSON; docs/campaigns.md): the question, a base run, a search space,
// an objective, a budget, seeds per configuration, where trials run, and the optional research
// agent. `parseCampaign` validates everything a trial would otherwise only find out about later
// (unknown settings, values no worker accepts, a grid without values) and names each problem.
import { z } from 'zod';
import { TrainingConfigPatchSchema } from '../swarm-protocol';
import { checkParamSpec, gridOf, ParamSpecSchema, type Params, type SearchSpace } from './space';
import { checkRoles, isRoleTask, ROLE_LAYOUTS, RolesSchema, roleWorkers, type RoleWorker } from './roles';

const Name = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/,
    'letters, digits, ".", "_" and "-" (up to 80), starting with a letter or digit',
  );

export const CLIENT_KINDS = ['openai', 'vercel', 'fetch', 'python', 'langchain', 'agents'] as const;

export const EvalSpecSchema = z
  .object({
    /** Held-out tasks per evaluation point (the first E of the eval split). */
    episodes: z.number().int().min(1).max(10_000).default(16),
    /** An evaluation every N training steps … */
    everySteps: z.number().int().positive().optional(),
    /** … or every M minutes of the trial (default: a quarter of the trial's minutes). */
    everyMinutes: z.number().positive().optional(),
    /** Also evaluate before the first step (a point at 0 for the curves; never used for pruning). */
    atStart: z.boolean().default(true),
  })
  .strict()
  .refine(
    (e) => e.everySteps === undefined || e.everyMinutes === undefined,
    'give everySteps or everyMinutes, not both',
  );
export type EvalSpec = z.output<typeof EvalSpecSchema>;

export const BaseRunSchema = z
  .object({
    /**
     * A bundled example (calculator-agent, guess-number, cocktail) or a task folder (relative to the campaign file).
     */
    task: z.string().min(1).max(1000),
    /** Which client of a bundled example runs (task folders run their client.ts). */
    client: z.enum(CLIENT_KINDS).default('openai'),
    model: z.string().min(1).max(1000).default('builtin'),
    clients: z.number().int().min(1).max(64).default(2),
    /** cocktail only: the share of calculator-agent tasks. */
    mix: z.number().min(0).max(1).optional(),
    /** Tasks played by several roles (proposer-solver): each role's model and training options over these. */
    roles: RolesSchema.optional(),
    /** Tasks played by several roles: one worker per role (default) or one shared by every role. */
    roleWorkers: z.enum(ROLE_LAYOUTS).optional(),
    /** Any training option of the worker (`agentjet worker` flags, camelCase: lr, groupSize, batch, …). */
    training: TrainingConfigPatchSchema.default({}),
    /** Worker settings that are not training options. */
    worker: z
      .object({
        threads: z.number().int().positive().max(256).optional(),
        /** Seed of the first seed run; seed k of a configuration uses seed + k. */
        seed: z.number().int().default(0),
        episodeTimeoutS: z.number().positive().optional(),
      })
      .strict()
      .default({ seed: 0 }),
    eval: EvalSpecSchema.default({ episodes: 16, atStart: true }),
  })
  .strict();
export type BaseRun = z.output<typeof BaseRunSchema>;

export const ObjectiveSchema = z
  .object({
    /** Held-out eval success rate or mean reward, or the train reward of the steps. */
    metric: z.enum(['eval_success', 'eval_reward', 'train_reward']).default('eval_success'),
    /** The last point, the area under the curve (trapezoids, as a mean over the trial), or the best point. */
    summary: z.enum(['final', 'auc', 'best']).default('final'),
    direction: z.enum(['maximize', 'minimize']).default('maximize'),
  })
  .strict();
export type Objective = z.output<typeof ObjectiveSchema>;

export const PrunerSchema = z
  .object({
    type: z.enum(['none', 'median', 'successive_halving', 'hyperband']).default('hyperband'),
    /** The first evaluation point a trial may be stopped at (its index, or its step with everySteps). */
    minResource: z.number().int().positive().default(1),
    /** Hyperband's largest resource (default: the last point of the first finished trial). */
    maxResource: z.number().int().positive().optional(),
    reductionFactor: z.number().int().min(2).default(3),
  })
  .strict();

export const OptimizerSchema = z
  .object({
    sampler: z.enum(['tpe', 'random', 'grid']).default('tpe'),
    seed: z.number().int().default(0),
    /** TPE: random configurations before the model takes over. */
    startupTrials: z.number().int().min(0).optional(),
    pruner: PrunerSchema.default({ type: 'hyperband', minResource: 1, reductionFactor: 3 }),
  })
  .strict();

export const BudgetSchema = z
  .object({
    /** Trials in all (a trial is one configuration with one seed). */
    trials: z.number().int().min(1).max(10_000),
    /** Each trial trains this long (wall clock), then gets its final evaluation. */
    minutesPerTrial: z
      .number()
      .positive()
      .max(7 * 24 * 60),
    /** …or stops earlier after this many training steps. */
    stepsPerTrial: z.number().int().positive().optional(),
    /** …or after updates that consumed this many training episodes (studies: equal episodes per arm). */
    episodesPerTrial: z.number().int().positive().optional(),
    /** No trial starts after this much campaign wall time (the running ones finish). */
    totalHours: z.number().positive().optional(),
    /** Stop the campaign after this many failed trials (default: the trial budget). */
    maxFailures: z.number().int().min(1).optional(),
  })
  .strict();

export const RemoteWorkerSchema = z
  .object({
    url: z.string().url(),
    adminToken: z.string().min(8).max(500),
    joinToken: z.string().min(8).max(500),
  })
  .strict();
export type RemoteWorker = z.infer<typeof RemoteWorkerSchema>;

export const WorkersSchema = z
  .object({
    /** Local workers in parallel: a number (0: none) or `auto` (what the CPUs and memory allow). */
    local: z.union([z.number().int().min(0).max(64), z.literal('auto')]).default('auto'),
    /** Running workers reset for each trial (`POST /swarm/v1/control/reset`); the clients run here. */
    remote: z.array(RemoteWorkerSchema).max(256).default([]),
  })
  .strict();

export const AgentSpecSchema = z
  .object({
    /** An OpenAI-compatible chat-completions endpoint (a hosted API, vLLM, Ollama …). */
    endpoint: z.string().url(),
    apiKey: z.string().max(500).default(''),
    model: z.string().min(1).max(200),
    /** `ask`: proposals wait for a person's approval in the Campaigns panel. */
    mode: z.enum(['auto', 'ask']).default('auto'),
    /** Hard limits: trials the agent may propose, its wall time, LLM tokens. */
    maxTrials: z.number().int().min(0).default(10),
    maxMinutes: z.number().positive().default(60),
    maxTokens: z.number().int().positive().default(200_000),
    /** Tool calls per turn before the turn is cut off. */
    maxToolCalls: z.number().int().positive().max(100).default(12),
  })
  .strict();
export type AgentSpec = z.output<typeof AgentSpecSchema>;

export const CampaignSpecSchema = z
  .object({
    name: Name,
    /** What the campaign is to find out (the report opens with it). */
    question: z.string().max(4000).default(''),
    base: BaseRunSchema,
    search: z
      .record(z.string().min(1).max(100), ParamSpecSchema)
      .refine((s) => Object.keys(s).length > 0, 'name at least one parameter'),
    objective: ObjectiveSchema.default({ metric: 'eval_success', summary: 'final', direction: 'maximize' }),
    optimizer: OptimizerSchema.default({
      sampler: 'tpe',
      seed: 0,
      pruner: { type: 'hyperband', minResource: 1, reductionFactor: 3 },
    }),
    budget: BudgetSchema,
    /** Runs per configuration, with seeds base.worker.seed + 0, 1, … (the report gives mean ± standard error). */
    seeds: z.number().int().min(1).max(100).default(1),
    workers: WorkersSchema.default({ local: 'auto', remote: [] }),
    agent: AgentSpecSchema.optional(),
  })
  .strict();
export type CampaignSpec = z.output<typeof CampaignSpecSchema>;
export type CampaignSpecInput = z.input<typeof CampaignSpecSchema>;

export type ParseResult = { ok: true; spec: CampaignSpec } | { ok: false; errors: string[] };

/** Problems zod cannot see: parameters that do not exist or take other values, a grid without values. */
export function checkCampaign(spec: CampaignSpec): string[] {
  const errors = Object.entries(spec.search).flatMap(([name, p]) => checkParamSpec(name, p).map((e) => `search.${e}`));
  if (spec.optimizer.sampler === 'grid') {
    const { missing } = gridOf(spec.search);
    if (missing.length > 0)
      errors.push(`optimizer.sampler grid: give grid values for ${missing.join(', ')} (e.g. grid: [1e-4, 3e-4])`);
  }
  if ((spec.base.mix !== undefined || 'mix' in spec.search) && spec.base.task !== 'cocktail')
    errors.push('mix applies to the cocktail task only');
  if (spec.workers.local === 0 && spec.workers.remote.length === 0)
    errors.push('workers: no local workers and no remote ones: trials could run nowhere');
  if (spec.base.eval.everyMinutes !== undefined && spec.base.eval.everyMinutes > spec.budget.minutesPerTrial)
    errors.push('base.eval.everyMinutes is longer than budget.minutesPerTrial');
  errors.push(...checkRoles(spec.base.task, spec.base.roles, spec.base.roleWorkers).map((e) => `base.${e}`));
  // A remote slot is one worker: a trial needing one per role starts its workers locally.
  if (isRoleTask(spec.base.task) && spec.base.roleWorkers !== 'shared' && spec.workers.remote.length > 0)
    errors.push('workers.remote: one worker per role (roleWorkers: separate) runs on local workers only');
  return errors;
}

/** Validates a parsed YAML/JSON document as a campaign; every problem with its path. */
export function parseCampaign(doc: unknown): ParseResult {
  const parsed = CampaignSpecSchema.safeParse(doc);
  if (!parsed.success)
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(campaign)'}: ${i.message}`),
    };
  const errors = checkCampaign(parsed.data);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, spec: parsed.data };
}

/** `${NAME}` in any string of the document replaced from `env` (tokens and keys stay out of the file). */
export function expandEnv(
  doc: unknown,
  env: Readonly<Record<string, string | undefined>>,
  missing: string[] = [],
): unknown {
  if (typeof doc === 'string') {
    return doc.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) missing.push(name);
      return v ?? '';
    });
  }
  if (Array.isArray(doc)) return doc.map((x) => expandEnv(x, env, missing));
  if (doc !== null && typeof doc === 'object')
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, expandEnv(v, env, missing)]));
  return doc;
}

/** What one trial runs: the base run with a configuration's parameters and a seed applied. */
export interface TrialSetup {
  task: string;
  client: BaseRun['client'];
  model: string;
  clients: number;
  mix: number | undefined;
  training: z.output<typeof TrainingConfigPatchSchema>;
  seed: number;
  threads: number | undefined;
  episodeTimeoutS: number | undefined;
  /** A task played by several roles: the workers the trial starts (null: one worker, `model` and `training`). */
  workers: RoleWorker[] | null;
}

export function trialSetup(spec: CampaignSpec, params: Params, seedIndex: number): TrialSetup {
  const b = spec.base;
  const training: Record<string, unknown> = { ...b.training };
  const setup: TrialSetup = {
    task: b.task,
    client: b.client,
    model: b.model,
    clients: b.clients,
    mix: b.mix,
    training: {},
    seed: b.worker.seed + seedIndex,
    threads: b.worker.threads,
    episodeTimeoutS: b.worker.episodeTimeoutS,
    workers: null,
  };
  for (const [k, v] of Object.entries(params)) {
    if (k === 'clients' && typeof v === 'number') setup.clients = v;
    else if (k === 'model' && typeof v === 'string') setup.model = v;
    else if (k === 'mix' && typeof v === 'number') setup.mix = v;
    else training[k] = v;
  }
  // Every value was checked against its option's schema (checkCampaign / checkParams); parse again
  // so the type says so.
  setup.training = TrainingConfigPatchSchema.parse(training);
  if (isRoleTask(b.task)) setup.workers = roleWorkers(b.task, setup, b.roles, b.roleWorkers ?? 'separate');
  return setup;
}

export type { Params, SearchSpace };
