// `agentjet train` output: one row per training step (terminal line + metrics JSONL record), the
// batch progress line, eval lines, and the summary tables at the end; per-task figures side by side.
import type { BatchProgress, StepMetrics } from '../shared/swarm-protocol';
import type { EvalSummary } from '../node/eval';
import { formatTasks, taskCells, taskHeaders, type TaskBreakdown, type TaskKey } from '../node/train-tasks';

export interface StepRow {
  step: number;
  weightVersion: number;
  episodes: number;
  rewardMean: number;
  successRate: number | null;
  /** Timeline merging: tokens before / after (1 = nothing merged); null when not reported. */
  mergeRatio: number | null;
  samples: number;
  trainSeconds: number;
  /** Wall time since the previous step (or the start). */
  stepSeconds: number;
  loss: number | null;
  /** Per task: the step's count of oldest not yet attributed ended train episodes (by arrival). */
  tasks?: TaskBreakdown;
}

export function stepRow(
  m: StepMetrics,
  mergeRatio: number | null,
  stepSeconds: number,
  tasks?: TaskBreakdown,
): StepRow {
  return {
    step: m.step,
    weightVersion: m.weightVersion,
    episodes: m.episodes,
    rewardMean: m.rewardMean,
    successRate: m.successRate,
    mergeRatio,
    samples: m.samples,
    trainSeconds: m.seconds,
    stepSeconds,
    loss: m.loss,
    ...(tasks ? { tasks } : {}),
  };
}

const f = (x: number | null, digits = 3): string => (x === null ? '–' : x.toFixed(digits));
const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/** The step line; with task keys, the per-task figures follow (`· calc reward … | guess -`). */
export function formatStep(r: StepRow, index: number, total: number, keys: readonly TaskKey[] = []): string {
  const line =
    `step ${index}/${total} (v${r.weightVersion}) · reward ${f(r.rewardMean)} · success ` +
    `${pct(r.successRate)} · merge ×${f(r.mergeRatio, 2)} · ${r.episodes} episodes · ${r.stepSeconds.toFixed(1)} s ` +
    `(train ${r.trainSeconds.toFixed(1)} s)`;
  return keys.length > 0 ? `${line} · ${formatTasks(r.tasks ?? {}, keys)}` : line;
}

export function formatProgress(p: BatchProgress, width = 20): string {
  const frac = p.target > 0 ? Math.min(1, p.current / p.target) : 0;
  const filled = Math.round(frac * width);
  return (
    `  batch [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.current}/${p.target} ` +
    `${p.unit}${p.ready ? ' · updating…' : ''}`
  );
}

export function summaryTable(rows: readonly StepRow[], keys: readonly TaskKey[] = []): string {
  const header = ['step', 'version', 'episodes', 'reward', 'success', 'merge', 'seconds', ...taskHeaders(keys)];
  const body = rows.map((r, i) => [
    String(i + 1),
    String(r.weightVersion),
    String(r.episodes),
    f(r.rewardMean),
    pct(r.successRate),
    f(r.mergeRatio, 2),
    r.stepSeconds.toFixed(1),
    ...taskCells(r.tasks ?? {}, keys),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** One evaluation's figures, with when and on which task it ran. */
export interface EvalRow extends EvalSummary {
  afterStep: number;
  task: TaskKey;
}

export function formatEval(r: EvalRow): string {
  return (
    `eval after step ${r.afterStep} [${r.task}]: success ${pct(r.successRate)} · reward ${f(r.rewardMean)} ` +
    `· ${r.episodes} held-out episodes${r.failed > 0 ? ` (${r.failed} failed)` : ''} (v${r.versions.join(',v')}) · ` +
    `${r.seconds.toFixed(1)} s`
  );
}

export function evalTable(rows: readonly EvalRow[]): string {
  return [
    'eval success by step:',
    ...rows.map(
      (r) =>
        `  after step ${String(r.afterStep).padStart(3)} [${r.task.padEnd(5)}]: ` +
        `${pct(r.successRate).padStart(6)} (${r.episodes} episodes)`,
    ),
  ].join('\n');
}
