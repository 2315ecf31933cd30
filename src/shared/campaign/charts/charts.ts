// The campaign charts (pure scene builders, drawn by the panel and serialised into the report):
// evaluation curves of every trial, train-reward curves by step, objective vs each parameter,
// parallel coordinates over the search space and the objective, and parameter importance.
// Pruned trials are dashed / hollow, failed ones crossed, the best configuration drawn thicker.
import type { CampaignStepPoint } from '../api';
import { metricOf, type TrialPoint } from '../objective';
import { configKey, type ParamSpec, type SearchSpace } from '../space';
import type { Objective } from '../spec';
import type { TrialRow } from '../trials';
import { axes, bandScale, fmtNum, frame, linearScale, logScale, plotX, plotY, type Frame } from './scales';
import { COLORS, rampColor, seriesColor, type Scene, type SceneItem } from './scene';

export const METRIC_LABEL: Record<Objective['metric'], string> = {
  eval_success: 'held-out success',
  eval_reward: 'held-out reward',
  train_reward: 'train reward',
};

export function paramsLabel(params: TrialRow['params']): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? fmtNum(v) : String(v)}`)
    .join(' ');
}

const trialTitle = (t: TrialRow): string =>
  `trial ${t.number} (${t.state}) · ${paramsLabel(t.params)} · seed ` +
  `${t.seed}${t.value !== null ? ` · objective ${fmtNum(t.value)}` : ''}`;

function domainOf(values: number[], fallback: [number, number]): [number, number] {
  const v = values.filter(Number.isFinite);
  if (v.length === 0) return fallback;
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];
}

/** y domain for a metric: success rates in [0, 1]; others from the data. */
const yDomain = (metric: Objective['metric'], ys: number[]): [number, number] =>
  metric === 'eval_success' ? [0, 1] : domainOf(ys, [0, 1]);

function linesScene(
  title: string,
  f: Frame,
  xTitle: string,
  yTitle: string,
  series: { points: [number, number][]; trial: TrialRow; best: boolean }[],
  yDom: [number, number],
): Scene {
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const x = linearScale(domainOf(xs, [0, 1]), plotX(f));
  const y = linearScale(yDom, plotY(f));
  const items: SceneItem[] = axes(
    f,
    { ticks: x.ticks.map((t) => ({ x: x(t), label: x.format(t) })), title: xTitle },
    { ticks: y.ticks.map((t) => ({ y: y(t), label: y.format(t) })), title: yTitle },
  );
  items.push({ kind: 'text', x: f.left, y: 14, text: title, size: 12, fill: COLORS.fg, weight: 'bold' });
  series.forEach((s, i) => {
    const color = seriesColor(i, series.length);
    const pts = s.points.map(([a, b]) => [x(a), y(b)] as [number, number]);
    const pruned = s.trial.state === 'pruned';
    if (pts.length > 1)
      items.push({
        kind: 'line',
        points: pts,
        stroke: color,
        width: s.best ? 3 : 1.5,
        ...(pruned ? { dash: '5 4', opacity: 0.7 } : {}),
        title: trialTitle(s.trial),
      });
    for (const [px, py] of pts.length <= 60 ? pts : [])
      items.push({
        kind: 'circle',
        x: px,
        y: py,
        r: s.best ? 3.5 : 2.5,
        fill: pruned ? 'none' : color,
        stroke: color,
        title: trialTitle(s.trial),
      });
    const last = pts.at(-1);
    if (last)
      items.push({ kind: 'text', x: last[0] + 4, y: last[1] - 4, text: `t${s.trial.number}`, size: 9, fill: color });
    if (last && pruned)
      items.push({
        kind: 'cross',
        x: last[0],
        y: last[1],
        r: 4,
        stroke: COLORS.warn,
        title: `${trialTitle(s.trial)} — pruned: ${s.trial.note ?? ''}`,
      });
  });
  return { width: f.width, height: f.height, title, items, marks: series.length };
}

/** Evaluation curves (metric vs minutes into the trial), one per trial that has points. */
export function evalCurvesChart(
  trials: readonly TrialRow[],
  o: Objective,
  best: string | null,
  width = 640,
  height = 300,
): Scene {
  const series = trials
    .filter((t) => t.points.length > 0 && t.state !== 'interrupted')
    .map((t) => ({
      trial: t,
      best: best !== null && configKey(t.params) === best,
      points: t.points.flatMap((p: TrialPoint) => {
        const v = metricOf(p, o.metric);
        return v === null ? [] : [[p.elapsedS / 60, v] as [number, number]];
      }),
    }));
  return linesScene(
    `${METRIC_LABEL[o.metric]} during each trial`,
    frame(width, height, 52, 38, 26, 26),
    'minutes into the trial',
    METRIC_LABEL[o.metric],
    series,
    yDomain(
      o.metric,
      series.flatMap((s) => s.points.map((p) => p[1])),
    ),
  );
}

/** Train reward per step, one curve per trial (the live curves of running trials). */
export function stepCurvesChart(
  trials: readonly TrialRow[],
  curves: Readonly<Record<string, readonly CampaignStepPoint[]>>,
  best: string | null,
  width = 640,
  height = 260,
): Scene {
  const series = trials
    .filter((t) => (curves[String(t.number)]?.length ?? 0) > 0 && t.state !== 'interrupted')
    .map((t) => ({
      trial: t,
      best: best !== null && configKey(t.params) === best,
      points: (curves[String(t.number)] ?? []).map((p) => [p.step, p.rewardMean] as [number, number]),
    }));
  return linesScene(
    'train reward per step',
    frame(width, height, 52, 38, 26, 26),
    'training step',
    'mean train reward',
    series,
    domainOf(
      series.flatMap((s) => s.points.map((p) => p[1])),
      [0, 1],
    ),
  );
}

function paramAxis(
  p: ParamSpec,
  values: readonly unknown[],
  range: [number, number],
): { at: (v: unknown) => number; ticks: { x: number; label: string }[] } {
  if ('choice' in p) {
    const b = bandScale(p.choice, range);
    return { at: b.at, ticks: b.ticks.map((t) => ({ x: t.x, label: String(t.value) })) };
  }
  const [lo, hi] = 'float' in p ? p.float : p.int;
  const nums = values.filter((v): v is number => typeof v === 'number');
  const dom: [number, number] = [Math.min(lo, ...nums), Math.max(hi, ...nums)];
  const s = p.log ? logScale(dom, range) : linearScale(dom, range);
  return {
    at: (v) => (typeof v === 'number' ? s(v) : Number.NaN),
    ticks: s.ticks.map((t) => ({ x: s(t), label: s.format(t) })),
  };
}

/** The objective of every trial against one parameter (pruned: hollow at the last value; failed: ×). */
export function paramScatterChart(
  trials: readonly TrialRow[],
  name: string,
  p: ParamSpec,
  o: Objective,
  width = 300,
  height = 220,
): Scene {
  const f = frame(width, height, 44, 38, 24, 22);
  const shown = trials.filter((t) => t.state !== 'interrupted' && t.state !== 'running');
  const ys = shown.flatMap((t) => (t.value !== null ? [t.value] : []));
  const y = linearScale(o.metric === 'eval_success' ? [0, 1] : domainOf(ys, [0, 1]), plotY(f), 4);
  const xa = paramAxis(
    p,
    shown.map((t) => t.params[name]),
    plotX(f),
  );
  const items: SceneItem[] = axes(
    f,
    { ticks: xa.ticks, title: name },
    { ticks: y.ticks.map((t) => ({ y: y(t), label: y.format(t) })), title: 'objective' },
  );
  items.push({
    kind: 'text',
    x: f.left,
    y: 14,
    text: `objective vs ${name}`,
    size: 12,
    fill: COLORS.fg,
    weight: 'bold',
  });
  let marks = 0;
  for (const t of shown) {
    const px = xa.at(t.params[name]);
    if (!Number.isFinite(px)) continue;
    marks++;
    if (t.state === 'failed' || t.value === null)
      items.push({
        kind: 'cross',
        x: px,
        y: plotY(f)[0] - 6,
        r: 4,
        stroke: COLORS.bad,
        title: `${trialTitle(t)} — ${t.note ?? 'failed'}`,
      });
    else
      items.push({
        kind: 'circle',
        x: px,
        y: y(t.value),
        r: 4.5,
        fill: t.state === 'pruned' ? 'none' : COLORS.accent,
        stroke: t.state === 'pruned' ? COLORS.warn : COLORS.accent,
        opacity: 0.85,
        title: trialTitle(t),
      });
  }
  return { width, height, title: `objective vs ${name}`, items, marks };
}

/**
 * Parallel coordinates: one axis per parameter and one for the objective; a line per trial coloured by its objective.
 */
export function parallelChart(
  trials: readonly TrialRow[],
  space: SearchSpace,
  o: Objective,
  width = 640,
  height = 280,
): Scene {
  const names = Object.keys(space);
  const f = frame(width, height, 40, 30, 36, 40);
  const shown = trials.filter((t) => t.state === 'complete' || t.state === 'pruned');
  const [x0, x1] = plotX(f);
  const axisX = (i: number): number => x0 + ((x1 - x0) * i) / Math.max(1, names.length);
  const ys = shown.flatMap((t) => (t.value !== null ? [t.value] : []));
  const objDom = o.metric === 'eval_success' ? ([0, 1] as [number, number]) : domainOf(ys, [0, 1]);
  const vAxes = names.map((name) =>
    paramAxis(
      space[name]!,
      shown.map((t) => t.params[name]),
      plotY(f),
    ),
  );
  const objAxis = linearScale(objDom, plotY(f), 4);
  const items: SceneItem[] = [
    {
      kind: 'text',
      x: f.left,
      y: 14,
      text: 'parallel coordinates (colour: objective)',
      size: 12,
      fill: COLORS.fg,
      weight: 'bold',
    },
  ];
  [...names, 'objective'].forEach((name, i) => {
    const x = axisX(i);
    items.push({
      kind: 'line',
      points: [
        [x, plotY(f)[0]],
        [x, plotY(f)[1]],
      ],
      stroke: COLORS.dim,
      width: 1,
    });
    items.push({ kind: 'text', x, y: f.top - 10, text: name, anchor: 'middle', size: 11, fill: COLORS.fg });
    const ticks =
      i < names.length
        ? vAxes[i]!.ticks.map((t) => ({ y: t.x, label: t.label }))
        : objAxis.ticks.map((t) => ({ y: objAxis(t), label: objAxis.format(t) }));
    for (const t of ticks) items.push({ kind: 'text', x: x + 4, y: t.y + 3, text: t.label, size: 9 });
  });
  const [lo, hi] = domainOf(ys, [0, 1]);
  for (const t of shown) {
    if (t.value === null) continue;
    const pts = names.map((name, i) => [axisX(i), vAxes[i]!.at(t.params[name])] as [number, number]);
    pts.push([axisX(names.length), objAxis(t.value)]);
    if (pts.some(([, y]) => !Number.isFinite(y))) continue;
    const rank = o.direction === 'maximize' ? (t.value - lo) / (hi - lo || 1) : (hi - t.value) / (hi - lo || 1);
    items.push({
      kind: 'line',
      points: pts,
      stroke: rampColor(rank),
      width: 2,
      ...(t.state === 'pruned' ? { dash: '5 4', opacity: 0.6 } : {}),
      title: trialTitle(t),
    });
  }
  return { width, height, title: 'parallel coordinates', items, marks: shown.filter((t) => t.value !== null).length };
}

/** Optuna's parameter importance as horizontal bars. */
export function importanceChart(importance: Readonly<Record<string, number>>, width = 420, height?: number): Scene {
  const entries = Object.entries(importance).sort((a, b) => b[1] - a[1]);
  const h = height ?? 40 + entries.length * 26;
  const left = 120;
  const items: SceneItem[] = [
    { kind: 'text', x: 8, y: 14, text: 'parameter importance (Optuna)', size: 12, fill: COLORS.fg, weight: 'bold' },
  ];
  const max = Math.max(1e-9, ...entries.map(([, v]) => v));
  entries.forEach(([name, v], i) => {
    const y = 28 + i * 26;
    const w = ((width - left - 50) * v) / max;
    items.push({ kind: 'text', x: left - 8, y: y + 13, text: name, anchor: 'end', size: 11, fill: COLORS.fg });
    items.push({
      kind: 'rect',
      x: left,
      y,
      w,
      h: 18,
      fill: COLORS.accent,
      opacity: 0.85,
      title: `${name}: ${fmtNum(v)}`,
    });
    items.push({ kind: 'text', x: left + w + 6, y: y + 13, text: fmtNum(v), size: 10 });
  });
  return { width, height: h, title: 'parameter importance', items, marks: entries.length };
}
