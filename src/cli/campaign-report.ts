// Terminal output of `agentjet campaign`: one line per trial event and the summary tables (pure).
import type { CampaignSummary } from '../shared/campaign/api';
import { paramsLabel } from '../shared/campaign/charts/charts';
import { fmtNum } from '../shared/campaign/charts/scales';
import { metricOf } from '../shared/campaign/objective';
import type { CampaignSpec } from '../shared/campaign/spec';
import { bestConfiguration, type TrialRow } from '../shared/campaign/trials';
import type { RunnerEvent } from '../node/campaign/campaign-runner';

const pct = (v: number | null): string => (v === null ? '-' : `${(v * 100).toFixed(1)}%`);
const mins = (s: number): string => `${(s / 60).toFixed(1)} min`;

/** A line for a runner event (null: nothing to print; step events go to the progress line). */
export function formatRunnerEvent(e: RunnerEvent, spec: CampaignSpec): string | null {
  switch (e.type) {
    case 'started': {
      const rerun = e.rerun.length ? ` (re-running trial ${e.rerun.join(', ')})` : '';
      return (
        `campaign ${spec.name}: ${spec.budget.trials} trials of ${fmtNum(spec.budget.minutesPerTrial)} min ` +
        `· ${spec.optimizer.sampler} sampler · ${spec.optimizer.pruner.type} pruner · slots ` +
        `${e.slots.join(', ')}${e.resumed ? ` · resumed${rerun}` : ''}`
      );
    }
    case 'trial_started':
      return (
        `trial ${e.trial.number} ▶ ${paramsLabel(e.trial.params)} · seed ${e.trial.seed} · ` +
        `${e.trial.source} · on ${e.trial.worker}`
      );
    case 'trial_point': {
      const v = metricOf(e.point, spec.objective.metric);
      const reward = e.point.evalReward === null ? '-' : e.point.evalReward.toFixed(3);
      return (
        `trial ${e.trial.number} · eval ${e.point.index} at step ${e.point.step} ` +
        `(${mins(e.point.elapsedS)}): success ${pct(e.point.evalSuccess)} reward ` +
        `${reward}${v === null ? '' : ` · ${spec.objective.metric} ${fmtNum(v)}`}`
      );
    }
    case 'trial_step':
      return null;
    case 'trial_ended': {
      const t = e.trial;
      const took = t.endedAt !== null ? ` · ${t.steps} steps, ${mins((t.endedAt - t.startedAt) / 1000)}` : '';
      const objective = t.value !== null ? ` · objective ${fmtNum(t.value)}` : '';
      const note = t.note ? `\n    ${t.note.split('\n').join('\n    ')}` : '';
      return `trial ${t.number} ■ ${t.state}${objective}${took}${note}`;
    }
    case 'note':
      return `  ${e.line}`;
  }
}

export function formatStepProgress(e: Extract<RunnerEvent, { type: 'trial_step' }>): string {
  return (
    `  trial ${e.number} step ${e.point.step} · train reward ${e.point.rewardMean.toFixed(3)} · ` +
    `${mins(e.point.elapsedS)}`
  );
}

/** Where a campaign or study command writes: lines, and (on a terminal) a progress line rewritten in place. */
export interface CampaignIo {
  out: (line: string) => void;
  progress?: (line: string) => void;
}

/** A runner's event handler that prints: steps on the progress line, everything else as a line of its own. */
export function printRunnerEvents(io: CampaignIo, spec: CampaignSpec): (e: RunnerEvent) => void {
  return (e) => {
    if (e.type === 'trial_step') return io.progress?.(formatStepProgress(e));
    const line = formatRunnerEvent(e, spec);
    if (line === null) return;
    io.progress?.('');
    io.out(line);
  };
}

function table(header: string[], body: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The trials as a table, the best configuration with its seeds' spread under it. */
export function trialsTable(trials: readonly TrialRow[], spec: CampaignSpec): string {
  const names = Object.keys(spec.search);
  const body = trials.map((t) => [
    String(t.number),
    t.state,
    ...names.map((n) => (typeof t.params[n] === 'number' ? fmtNum(t.params[n]) : String(t.params[n] ?? '-'))),
    String(t.seed),
    t.value === null ? '-' : fmtNum(t.value),
    String(t.steps),
    t.endedAt !== null ? ((t.endedAt - t.startedAt) / 60_000).toFixed(1) : '-',
    t.worker,
  ]);
  const out = [table(['trial', 'state', ...names, 'seed', 'objective', 'steps', 'minutes', 'worker'], body)];
  const best = bestConfiguration(trials, spec.objective);
  if (best?.spread)
    out.push(
      `best: ${paramsLabel(best.params)} · objective ` +
        `${fmtNum(best.spread.mean)}${best.spread.se !== null ? ` ± ${fmtNum(best.spread.se)} (SE)` : ''} over ` +
        `${best.spread.n} seed(s)`,
    );
  return out.join('\n');
}

export function campaignsTable(list: readonly CampaignSummary[]): string {
  if (list.length === 0) return 'no campaigns yet (agentjet campaign run FILE)';
  return table(
    ['campaign', 'state', 'trials', 'completed', 'pruned', 'failed', 'best', 'wall', 'folder'],
    list.map((c) => [
      c.name,
      `${c.state}${c.live ? ' (live)' : ''}`,
      `${c.trials}/${c.budgetTrials}`,
      String(c.completed),
      String(c.pruned),
      String(c.failed),
      c.bestValue === null ? '-' : fmtNum(c.bestValue),
      mins(c.wallS),
      c.dir,
    ]),
  );
}
