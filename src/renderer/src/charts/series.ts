// Pure transforms from the contract's metric points to the rows the charts draw. Recharts gets
// plain arrays of numbers; long runs are thinned (`downsample`) so a chart never draws more than a
// few thousand points, while the counts shown (`data-points`) stay the real ones.
import type { BatchProgress } from '../../../shared/swarm-protocol';
import type { CodeMarker, EvalPoint, StepPoint } from '../../../shared/workbench-api';

export interface RewardRow {
  step: number;
  mean: number;
  /** [min, max] for the band (an Area with a range value). */
  band: [number, number];
  success: number | null;
}

export interface EvalRow {
  weightVersion: number;
  success: number | null;
  reward: number;
  /** Eval episodes behind the point (several weight versions pooled when each had few). */
  episodes: number;
}

export interface MergeRow {
  step: number;
  tokensBefore: number;
  tokensAfter: number;
  ratio: number;
  samplesPerEpisode: number;
}

export interface StepTimeRow {
  step: number;
  rollout: number;
  update: number;
}

export interface MarkerLine {
  step: number;
  label: string;
  codeVersion: string;
}

export interface BatchFill {
  fraction: number;
  label: string;
  detail: string;
  ready: boolean;
}

export const MAX_CHART_POINTS = 1500;

/** The short form of a content-hash code version. */
export function shortVersion(v: string | null | undefined): string {
  if (!v) return '—';
  return v.length > 8 ? v.slice(0, 8) : v;
}

/** Keeps at most `max` items, evenly spaced, always keeping the last one. */
export function downsample<T>(items: readonly T[], max: number = MAX_CHART_POINTS): T[] {
  if (items.length <= max || max < 2) return items.slice();
  const out: T[] = [];
  const stride = (items.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(items[Math.round(i * stride)]!);
  return out;
}

const finite = (n: number | null): number | null => (n === null || !Number.isFinite(n) ? null : n);

export function rewardRows(steps: readonly StepPoint[]): RewardRow[] {
  return downsample(steps).map((p) => ({
    step: p.step,
    mean: p.rewardMean,
    band: [Math.min(p.rewardMin, p.rewardMax), Math.max(p.rewardMin, p.rewardMax)],
    success: finite(p.successRate),
  }));
}

/**
 * Eval points in weight-version order. Training goes on while an eval round plays, so one round's
 * episodes spread over several versions, a few episodes each; consecutive versions are pooled
 * (episode-weighted) until a point stands for at least `minEpisodes`, so a lone lucky episode
 * does not plot as 100%. A point sits at the last version it pools.
 */
export function evalRows(evals: readonly EvalPoint[], minEpisodes = 8): EvalRow[] {
  const sorted = [...evals].sort((a, b) => a.weightVersion - b.weightVersion);
  const rows: EvalRow[] = [];
  let pool: EvalPoint[] = [];
  const flush = (): void => {
    const last = pool.at(-1);
    if (!last) return;
    const episodes = pool.reduce((n, e) => n + e.episodes, 0);
    const scored = pool.filter((e) => finite(e.successRate) !== null);
    const scoredEpisodes = scored.reduce((n, e) => n + e.episodes, 0);
    const success =
      scoredEpisodes > 0 ? scored.reduce((n, e) => n + (e.successRate ?? 0) * e.episodes, 0) / scoredEpisodes : null;
    const reward = episodes > 0 ? pool.reduce((n, e) => n + e.rewardMean * e.episodes, 0) / episodes : last.rewardMean;
    rows.push({ weightVersion: last.weightVersion, success, reward, episodes });
    pool = [];
  };
  for (const e of sorted) {
    pool.push(e);
    if (pool.reduce((n, p) => n + p.episodes, 0) >= minEpisodes) flush();
  }
  flush();
  return downsample(rows);
}

export function mergeRows(steps: readonly StepPoint[]): MergeRow[] {
  return downsample(steps).map((p) => ({
    step: p.step,
    tokensBefore: p.tokensBefore,
    tokensAfter: p.tokensAfter,
    ratio: p.compressionRatio,
    samplesPerEpisode: p.samplesPerEpisode,
  }));
}

export function stepTimeRows(steps: readonly StepPoint[]): StepTimeRow[] {
  return downsample(steps).map((p) => ({
    step: p.step,
    rollout: Math.max(0, p.rolloutS),
    update: Math.max(0, p.updateS),
  }));
}

/** One vertical line per code-version change, at the step it took over; several on one step keep the latest. */
export function markerLines(markers: readonly CodeMarker[]): MarkerLine[] {
  const byStep = new Map<number, CodeMarker>();
  for (const m of [...markers].sort((a, b) => a.time - b.time)) byStep.set(m.step, m);
  return [...byStep.values()]
    .sort((a, b) => a.step - b.step)
    .map((m) => ({ step: m.step, label: shortVersion(m.codeVersion), codeVersion: m.codeVersion }));
}

export function batchFill(progress: BatchProgress | null): BatchFill | null {
  if (!progress) return null;
  const target = Math.max(0, progress.target);
  const fraction = target > 0 ? Math.min(1, Math.max(0, progress.current / target)) : progress.ready ? 1 : 0;
  return {
    fraction,
    label: `${progress.current}/${target} ${progress.unit}`,
    detail: progress.detail,
    ready: progress.ready,
  };
}

export interface CompareRow {
  step: number;
  aReward: number | null;
  bReward: number | null;
  aSuccess: number | null;
  bSuccess: number | null;
}

/** Two runs' curves on one step axis (a step present in only one run leaves the other's value null). */
export function compareRows(a: readonly StepPoint[], b: readonly StepPoint[]): CompareRow[] {
  const rows = new Map<number, CompareRow>();
  const row = (step: number): CompareRow => {
    let r = rows.get(step);
    if (!r) {
      r = { step, aReward: null, bReward: null, aSuccess: null, bSuccess: null };
      rows.set(step, r);
    }
    return r;
  };
  for (const p of a) Object.assign(row(p.step), { aReward: p.rewardMean, aSuccess: finite(p.successRate) });
  for (const p of b) Object.assign(row(p.step), { bReward: p.rewardMean, bSuccess: finite(p.successRate) });
  return downsample([...rows.values()].sort((x, y) => x.step - y.step));
}

/** Compact number formatting for axes and tooltips. */
export function fmt(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const abs = Math.abs(n);
  if (abs >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  if (Number.isInteger(n)) return String(n);
  return n.toPrecision(digits).replace(/\.?0+$/, '');
}
