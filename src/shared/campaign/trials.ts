// Campaign and trial records as the store keeps them and the panel, the report and the research
// agent read them, plus the pure summaries over them: configurations grouped across seeds with
// mean ± standard error, the best configuration, and counts by state.
import { z } from 'zod';
import { better } from './objective';
import { TrialPointSchema } from './objective';
import { configKey } from './space';
import type { Objective } from './spec';

export const TrialStateSchema = z.enum(['running', 'complete', 'pruned', 'failed', 'interrupted']);
export type TrialState = z.infer<typeof TrialStateSchema>;

const ScalarSchema = z.union([z.string(), z.number(), z.boolean()]);

export const TrialRowSchema = z.object({
  campaignId: z.string(),
  /** Optuna's trial number. */
  number: z.number().int().min(0),
  state: TrialStateSchema,
  params: z.record(z.string(), ScalarSchema),
  seed: z.number().int(),
  /** Who chose the configuration: the optimiser, the research agent, or a re-run after a restart. */
  source: z.enum(['optimizer', 'agent', 'seed', 'rerun']),
  /** The research agent's rationale, when it proposed this configuration. */
  rationale: z.string().nullable(),
  value: z.number().nullable(),
  points: z.array(TrialPointSchema),
  /** Why it was pruned, or failed (the cause), or stopped. */
  note: z.string().nullable(),
  /** Where it ran: `local` or the remote worker's URL. */
  worker: z.string(),
  runDir: z.string().nullable(),
  steps: z.number().int().min(0),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
});
export type TrialRow = z.infer<typeof TrialRowSchema>;

export const CampaignStateSchema = z.enum(['running', 'stopped', 'done', 'failed']);
export type CampaignState = z.infer<typeof CampaignStateSchema>;

export interface Spread {
  n: number;
  mean: number;
  /** Standard error of the mean (sample sd / √n); null for a single run. */
  se: number | null;
}

export function spread(values: readonly number[]): Spread | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n === 1) return { n, mean, se: null };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  return { n, mean, se: Math.sqrt(variance / n) };
}

export interface ConfigSummary {
  key: string;
  params: TrialRow['params'];
  trials: number[];
  /** Over the completed trials' objective values. */
  spread: Spread | null;
  pruned: number;
  failed: number;
}

/** Trials grouped by configuration (their parameters), in order of first appearance. */
export function configurations(trials: readonly TrialRow[]): ConfigSummary[] {
  const byKey = new Map<string, ConfigSummary & { values: number[] }>();
  for (const t of [...trials].sort((a, b) => a.number - b.number)) {
    if (t.state === 'interrupted') continue;
    const key = configKey(t.params);
    const c = byKey.get(key) ?? { key, params: t.params, trials: [], spread: null, pruned: 0, failed: 0, values: [] };
    c.trials.push(t.number);
    if (t.state === 'complete' && t.value !== null) c.values.push(t.value);
    if (t.state === 'pruned') c.pruned++;
    if (t.state === 'failed') c.failed++;
    byKey.set(key, c);
  }
  return [...byKey.values()].map(({ values, ...c }) => ({ ...c, spread: spread(values) }));
}

/** The configuration with the best mean over its completed seeds. */
export function bestConfiguration(trials: readonly TrialRow[], o: Objective): ConfigSummary | null {
  let best: ConfigSummary | null = null;
  for (const c of configurations(trials)) {
    if (!c.spread) continue;
    if (!best?.spread || better(o, c.spread.mean, best.spread.mean)) best = c;
  }
  return best;
}

export interface StateCounts {
  trials: number;
  running: number;
  completed: number;
  pruned: number;
  failed: number;
  interrupted: number;
}

export function countStates(trials: readonly TrialRow[]): StateCounts {
  const n = (s: TrialState): number => trials.filter((t) => t.state === s).length;
  return {
    trials: trials.length - n('interrupted'),
    running: n('running'),
    completed: n('complete'),
    pruned: n('pruned'),
    failed: n('failed'),
    interrupted: n('interrupted'),
  };
}
