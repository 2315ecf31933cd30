// Pure helpers of the Campaigns panel: the spec of a campaign as the charts need it, the charts
// to draw for a detail, and display text for trials.
import type { AgentState, CampaignDetail, CampaignSummary } from '../../../../shared/campaign/api';
import { fmtNum } from '../../../../shared/campaign/charts/scales';
import {
  evalCurvesChart,
  importanceChart,
  paramScatterChart,
  parallelChart,
  stepCurvesChart,
} from '../../../../shared/campaign/charts/charts';
import type { Scene } from '../../../../shared/campaign/charts/scene';
import { CampaignSpecSchema, type CampaignSpec } from '../../../../shared/campaign/spec';
import { bestConfiguration, type TrialRow } from '../../../../shared/campaign/trials';

export function specOf(detail: CampaignDetail): CampaignSpec | null {
  const parsed = CampaignSpecSchema.safeParse(detail.spec);
  return parsed.success ? parsed.data : null;
}

export interface ChartEntry {
  id: string;
  scene: Scene;
  wide: boolean;
}

/**
 * Every chart of a campaign: curves, live step curves, parallel coordinates, objective vs each
 * parameter, importance.
 */
export function campaignCharts(detail: CampaignDetail, spec: CampaignSpec): ChartEntry[] {
  const trials = detail.trials.filter((t) => t.state !== 'interrupted');
  const best = bestConfiguration(trials, spec.objective)?.key ?? null;
  const out: ChartEntry[] = [
    { id: 'eval-curves', scene: evalCurvesChart(trials, spec.objective, best), wide: true },
    { id: 'step-curves', scene: stepCurvesChart(trials, detail.curves, best), wide: true },
    { id: 'parallel', scene: parallelChart(trials, spec.search, spec.objective), wide: true },
  ];
  for (const [name, p] of Object.entries(spec.search))
    out.push({ id: `scatter-${name}`, scene: paramScatterChart(trials, name, p, spec.objective), wide: false });
  if (detail.importance) out.push({ id: 'importance', scene: importanceChart(detail.importance), wide: false });
  return out;
}

export function trialMinutes(t: TrialRow, now: number): string {
  return (((t.endedAt ?? now) - t.startedAt) / 60_000).toFixed(1);
}

export const stateClass = (s: TrialRow['state']): string => `trial-state trial-${s}`;

/** The agent's one-line status: state, mode, model, tokens used, trials proposed and its note. */
export function agentStatusText(agent: AgentState): string {
  const mode = agent.mode === 'ask' ? 'ask before running' : 'auto';
  const note = agent.note ? ` · ${agent.note}` : '';
  const usage = `${agent.tokensUsed} tokens · ${agent.trialsProposed} proposed`;
  return `${agent.status} · ${mode} · ${agent.model} · ${usage}${note}`;
}

/** A campaign's line in the list: state, trials, pruned, failed and the best value so far. */
export function campaignListText(c: CampaignSummary): string {
  const best = c.bestValue === null ? '—' : fmtNum(c.bestValue);
  return `${c.state} · ${c.trials}/${c.budgetTrials} trials · ${c.pruned} pruned · ${c.failed} failed · best ${best}`;
}

/** A campaign's summary line in its detail: trials by outcome, wall time and compute time in minutes. */
export function campaignDetailText(s: CampaignSummary, computeS: number): string {
  const outcomes = `${s.completed} completed · ${s.pruned} pruned · ${s.failed} failed`;
  const counts = `${s.trials}/${s.budgetTrials} trials · ${outcomes}`;
  return `${counts} · wall ${(s.wallS / 60).toFixed(1)} min · compute ${(computeS / 60).toFixed(1)} min`;
}
