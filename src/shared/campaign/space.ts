// A campaign's search space: which settings a trial may vary (any training option of the worker,
// plus the client count, the model and the cocktail's task mix), how each is written in a campaign
// file (a float or int range, optionally log-scaled or stepped, or a list of choices), how it maps
// onto Optuna distributions, and the one check every proposed configuration passes — the
// optimiser's, the research agent's or a person's.
import { z } from 'zod';
import { TrainingConfigPatchSchema } from '../swarm-protocol';

const Scalar = z.union([z.string().max(500), z.number(), z.boolean()]);
export type Scalar = z.infer<typeof Scalar>;

export const ParamSpecSchema = z.union([
  z
    .object({
      float: z.tuple([z.number(), z.number()]),
      log: z.boolean().default(false),
      step: z.number().positive().optional(),
      /** Values the grid sampler walks (required for the grid sampler). */
      grid: z.array(z.number()).min(1).max(1000).optional(),
    })
    .strict(),
  z
    .object({
      int: z.tuple([z.number().int(), z.number().int()]),
      log: z.boolean().default(false),
      step: z.number().int().positive().optional(),
      grid: z.array(z.number().int()).min(1).max(1000).optional(),
    })
    .strict(),
  z.object({ choice: z.array(Scalar).min(1).max(1000) }).strict(),
]);
export type ParamSpec = z.output<typeof ParamSpecSchema>;
export type SearchSpace = Record<string, ParamSpec>;
export type Params = Record<string, Scalar>;

/** Settings a trial may vary besides the training options, with the schema of their values. */
export const TRIAL_SETTINGS = {
  /** Swarm client processes of the trial. */
  clients: z.number().int().min(1).max(64),
  /** `builtin` or a Hugging Face model folder. */
  model: z.string().min(1).max(1000),
  /** cocktail only: the share of calculator-agent tasks. */
  mix: z.number().min(0).max(1),
} as const;

/** The schema of a search-space parameter's values: a training option or a trial setting. */
export function paramSchema(name: string): z.ZodType | null {
  if (Object.hasOwn(TRIAL_SETTINGS, name)) return TRIAL_SETTINGS[name as keyof typeof TRIAL_SETTINGS];
  const shape: Record<string, z.ZodType> = TrainingConfigPatchSchema.shape;
  return Object.hasOwn(shape, name) ? shape[name]! : null;
}

export const SEARCHABLE = [...Object.keys(TRIAL_SETTINGS), ...Object.keys(TrainingConfigPatchSchema.shape)];

const ok = (schema: z.ZodType, v: unknown): boolean => schema.safeParse(v).success;

/** Problems with one parameter's declaration (empty when fine). */
export function checkParamSpec(name: string, p: ParamSpec): string[] {
  const schema = paramSchema(name);
  if (!schema) return [`${name}: not a setting a trial can vary (one of: ${SEARCHABLE.join(', ')})`];
  const errors: string[] = [];
  if ('choice' in p) {
    for (const c of p.choice)
      if (!ok(schema, c)) errors.push(`${name}: choice ${JSON.stringify(c)} is not a valid value`);
    if (new Set(p.choice.map((c) => JSON.stringify(c))).size !== p.choice.length)
      errors.push(`${name}: choices repeat`);
    return errors;
  }
  const [low, high] = 'float' in p ? p.float : p.int;
  if (!(low < high)) errors.push(`${name}: the range [${low}, ${high}] must have low < high`);
  if (p.log && low <= 0) errors.push(`${name}: a log scale needs low > 0`);
  if (p.log && p.step !== undefined) errors.push(`${name}: give either log or step, not both`);
  for (const v of [low, high, ...(p.grid ?? [])]) if (!ok(schema, v)) errors.push(`${name}: ${v} is not a valid value`);
  if ('float' in p && ok(schema, low) && !ok(schema, low + (high - low) / Math.PI))
    errors.push(`${name}: takes whole numbers; write it as {int: [${low}, ${high}]}`);
  for (const g of p.grid ?? [])
    if (g < low || g > high) errors.push(`${name}: grid value ${g} lies outside [${low}, ${high}]`);
  return errors;
}

/** Whether a value lies in a parameter's declared domain. */
export function inDomain(p: ParamSpec, v: unknown): boolean {
  if ('choice' in p) return p.choice.some((c) => c === v);
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  const [low, high] = 'float' in p ? p.float : p.int;
  if (v < low || v > high) return false;
  if ('int' in p && !Number.isInteger(v)) return false;
  if (p.step !== undefined) {
    const k = (v - low) / p.step;
    if (Math.abs(k - Math.round(k)) > 1e-9) return false;
  }
  return true;
}

/** Problems with a proposed configuration: missing or unknown parameters, values outside their domain. */
export function checkParams(space: SearchSpace, params: Record<string, unknown>): string[] {
  const errors: string[] = [];
  for (const name of Object.keys(params))
    if (!Object.hasOwn(space, name)) errors.push(`${name}: not in the search space (${Object.keys(space).join(', ')})`);
  for (const [name, p] of Object.entries(space)) {
    if (!Object.hasOwn(params, name)) errors.push(`${name}: missing`);
    else if (!inDomain(p, params[name]))
      errors.push(`${name}: ${JSON.stringify(params[name])} is outside ${describeParam(p)}`);
  }
  return errors;
}

/** `[1e-5, 1e-3] log`, `{2, 4, 8}`: a parameter's domain for people. */
export function describeParam(p: ParamSpec): string {
  if ('choice' in p) return `{${p.choice.map((c) => (typeof c === 'string' ? c : String(c))).join(', ')}}`;
  const [low, high] = 'float' in p ? p.float : p.int;
  return (
    `${'int' in p ? 'int ' : ''}[${low}, ` +
    `${high}]${p.log ? ' log' : ''}${p.step !== undefined ? ` step ${p.step}` : ''}`
  );
}

export type OptunaDistribution =
  | { type: 'float'; low: number; high: number; log: boolean; step?: number }
  | { type: 'int'; low: number; high: number; log: boolean; step?: number }
  | { type: 'categorical'; choices: Scalar[] };

/** The Optuna distribution of a parameter. */
export function toDistribution(p: ParamSpec): OptunaDistribution {
  if ('choice' in p) return { type: 'categorical', choices: p.choice };
  const [low, high] = 'float' in p ? p.float : p.int;
  return {
    type: 'float' in p ? 'float' : 'int',
    low,
    high,
    log: p.log,
    ...(p.step !== undefined ? { step: p.step } : {}),
  };
}

/** The grid sampler's values per parameter, or the names of parameters that give none. */
export function gridOf(space: SearchSpace): { grid: Record<string, Scalar[]>; missing: string[] } {
  const grid: Record<string, Scalar[]> = {};
  const missing: string[] = [];
  for (const [name, p] of Object.entries(space)) {
    if ('choice' in p) grid[name] = p.choice;
    else if (p.grid) grid[name] = p.grid;
    else if ('int' in p && !p.log && (p.int[1] - p.int[0]) / (p.step ?? 1) < 1000) {
      const step = p.step ?? 1;
      grid[name] = Array.from({ length: Math.floor((p.int[1] - p.int[0]) / step) + 1 }, (_, i) => p.int[0] + i * step);
    } else missing.push(name);
  }
  return { grid, missing };
}

/** How many configurations a grid holds. */
export const gridSize = (grid: Record<string, readonly unknown[]>): number =>
  Object.values(grid).reduce((n, v) => n * v.length, 1);

/** A configuration's identity across seeds: its parameters in name order. */
export function configKey(params: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]),
  );
}
