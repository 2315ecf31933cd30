// A campaign's standalone report (pure: data in, Markdown + HTML + SVG charts out): the question,
// the setup and search space, every trial with its configuration, curve and objective, the best
// configuration with its seeds' spread (mean ± standard error), what was pruned and why (with the
// other trials' values at that point), what failed, parameter importance, the research agent's
// decisions and analysis, and the wall time and compute spent.
import type { CampaignStepPoint, CampaignSummary, Decision } from './api';
import {
  evalCurvesChart,
  importanceChart,
  METRIC_LABEL,
  paramScatterChart,
  paramsLabel,
  parallelChart,
  stepCurvesChart,
} from './charts/charts';
import { fmtNum } from './charts/scales';
import { sceneToSvg, type Scene } from './charts/scene';
import { metricOf } from './objective';
import { describeParam } from './space';
import type { CampaignSpec } from './spec';
import { bestConfiguration, configurations, countStates, type TrialRow } from './trials';

export interface ReportData {
  summary: CampaignSummary;
  spec: CampaignSpec;
  trials: TrialRow[];
  curves: Record<string, CampaignStepPoint[]>;
  importance: Record<string, number> | null;
  analysis: string | null;
  decisions: Decision[];
  generatedAt: number;
}

export interface Report {
  markdown: string;
  html: string;
  /** file name → SVG, written beside the Markdown (which links them). */
  charts: Record<string, string>;
}

const minutes = (s: number): string => (s >= 3600 ? `${(s / 3600).toFixed(2)} h` : `${(s / 60).toFixed(1)} min`);
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const val = (v: number | null): string => (v === null ? '—' : fmtNum(v));
const fmtParam = (v: unknown): string => (typeof v === 'number' ? fmtNum(v) : v === undefined ? '—' : String(v));
const pm = (mean: number, se: number | null, n: number): string =>
  `${fmtNum(mean)}${se !== null ? ` ± ${fmtNum(se)}` : ''} (n=${n})`;

/** Worker time spent: each trial's start to end (a running one until now). */
export function computeSeconds(trials: readonly TrialRow[], now: number): number {
  return trials.reduce((s, t) => s + Math.max(0, ((t.endedAt ?? now) - t.startedAt) / 1000), 0);
}

/** Why each pruned trial was stopped, with the other trials' objective at the same point. */
export function prunedExplanations(
  trials: readonly TrialRow[],
  spec: CampaignSpec,
): { trial: TrialRow; text: string }[] {
  return trials
    .filter((t) => t.state === 'pruned')
    .map((t) => {
      const last = [...t.points].sort((a, b) => a.index - b.index).at(-1);
      if (!last) return { trial: t, text: t.note ?? 'stopped' };
      const peers = trials
        .filter((o) => o.number !== t.number && o.state !== 'interrupted')
        .flatMap((o) => {
          const p = o.points.find((x) => x.resource === last.resource);
          const v = p ? metricOf(p, spec.objective.metric) : null;
          return v === null ? [] : [v];
        })
        .sort((a, b) => a - b);
      const mine = metricOf(last, spec.objective.metric);
      const median = peers.length ? peers[Math.floor((peers.length - 1) / 2)]! : null;
      const best = spec.objective.direction === 'maximize' ? peers.at(-1)! : peers[0]!;
      const cmp =
        median !== null
          ? `; the other trials at that point: median ${fmtNum(median)}, best ${fmtNum(best)} (n=${peers.length})`
          : '';
      return {
        trial: t,
        text: `${t.note ?? 'stopped'} — its ${METRIC_LABEL[spec.objective.metric]} there ${val(mine)}${cmp}`,
      };
    });
}

function charts(d: ReportData): Record<string, Scene> {
  const best = bestConfiguration(d.trials, d.spec.objective)?.key ?? null;
  const out: Record<string, Scene> = {
    'eval-curves.svg': evalCurvesChart(d.trials, d.spec.objective, best),
    'train-curves.svg': stepCurvesChart(d.trials, d.curves, best),
    'parallel.svg': parallelChart(d.trials, d.spec.search, d.spec.objective),
  };
  for (const [name, p] of Object.entries(d.spec.search))
    out[`objective-vs-${name}.svg`] = paramScatterChart(d.trials, name, p, d.spec.objective);
  if (d.importance) out['importance.svg'] = importanceChart(d.importance);
  return out;
}

export function buildReport(d: ReportData): Report {
  const scenes = charts(d);
  const svgs = Object.fromEntries(Object.entries(scenes).map(([k, s]) => [k, sceneToSvg(s)]));
  const md = markdown(d, Object.keys(svgs));
  return { markdown: md, html: html(d, md, svgs), charts: svgs };
}

function markdown(d: ReportData, chartFiles: string[]): string {
  const now = d.summary.endedAt ?? d.generatedAt;
  return [
    ...headerSection(d, now),
    ...bestSection(d),
    ...setupSection(d.spec),
    ...trialsSection(d, now),
    ...outcomesSection(d),
    ...agentSection(d),
    '## Charts',
    '',
    ...chartFiles.map((f) => `![${f.replace(/\.svg$/, '')}](report-charts/${f})`),
    '',
  ].join('\n');
}

/** The title, the question and the state line (trial counts, wall time, compute). */
function headerSection(d: ReportData, now: number): string[] {
  const { spec, trials, summary } = d;
  const counts = countStates(trials);
  const L: string[] = [`# Campaign ${spec.name}`, ''];
  if (spec.question) L.push(`> ${spec.question.split('\n').join('\n> ')}`, '');
  const running = counts.running ? `, ${counts.running} running` : '';
  const interrupted = counts.interrupted ? `; ${counts.interrupted} interrupted and re-run` : '';
  L.push(
    `State **${summary.state}** · ${counts.trials} of ${spec.budget.trials} trials (${counts.completed} completed,` +
      ` ${counts.pruned} pruned, ${counts.failed} failed${running}${interrupted})` +
      ` · wall time ${minutes(summary.wallS)} · compute ${minutes(computeSeconds(trials, now))} of worker time` +
      ` · report of ${new Date(d.generatedAt).toISOString()}`,
    '',
  );
  return L;
}

/** The best configuration with its seeds' spread, and every configuration's when there are several. */
function bestSection(d: ReportData): string[] {
  const { spec, trials } = d;
  const best = bestConfiguration(trials, spec.objective);
  const L: string[] = ['## Best configuration', ''];
  if (best?.spread) {
    const objective = `${spec.objective.summary} ${METRIC_LABEL[spec.objective.metric]}`;
    L.push(
      `**${paramsLabel(best.params)}** — objective (${objective})` +
        ` **${pm(best.spread.mean, best.spread.se, best.spread.n)}** over seeds (mean ± standard error),` +
        ` trials ${best.trials.join(', ')}.`,
      '',
    );
  } else L.push('No trial has completed yet.', '');
  const configs = configurations(trials).filter((c) => c.spread);
  if (configs.length > 1 || spec.seeds > 1) {
    L.push('| configuration | objective (mean ± SE) | seeds | pruned | failed |', '| --- | --- | --- | --- | --- |');
    for (const c of configs) {
      const spread = pm(c.spread!.mean, c.spread!.se, c.spread!.n);
      L.push(`| ${cell(paramsLabel(c.params))} | ${spread} | ${c.trials.length} | ${c.pruned} | ${c.failed} |`);
    }
    L.push('');
  }
  return L;
}

/** The setup: task and training, objective, optimiser, budget, workers; and the search space. */
function setupSection(spec: CampaignSpec): string[] {
  const b = spec.base;
  const { budget, optimizer } = spec;
  const training = Object.keys(b.training).length
    ? Object.entries(b.training)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', ')
    : 'worker defaults';
  const client = b.task === 'calculator-agent' ? ` (${b.client} client)` : '';
  const mix = b.mix !== undefined ? `, mix ${b.mix}` : '';
  const every =
    b.eval.everySteps !== undefined
      ? `every ${b.eval.everySteps} steps`
      : `every ${fmtNum(b.eval.everyMinutes ?? budget.minutesPerTrial / 4)} min`;
  const steps = budget.stepsPerTrial ? ` or ${budget.stepsPerTrial} steps` : '';
  const hours = budget.totalHours ? `, ${budget.totalHours} h in all` : '';
  const local = spec.workers.local === 0 ? 'no local ones' : `local (${spec.workers.local})`;
  const remote = spec.workers.remote.length ? `, remote ${spec.workers.remote.map((w) => w.url).join(', ')}` : '';
  const L: string[] = [
    '## Setup',
    '',
    `- Task **${b.task}**${client}, model **${b.model}**, ${b.clients} client(s)${mix}; training ${training}.`,
    `- Objective: ${spec.objective.direction} the **${spec.objective.summary}** ${METRIC_LABEL[spec.objective.metric]}` +
      ` (${b.eval.episodes} held-out episodes per point, ${every}${b.eval.atStart ? ', and before training' : ''}).`,
    `- Optimiser: Optuna ${optimizer.sampler} sampler (seed ${optimizer.seed}), ${optimizer.pruner.type} pruner` +
      ` (min resource ${optimizer.pruner.minResource}, reduction ${optimizer.pruner.reductionFactor}).`,
    `- Budget: ${budget.trials} trials of ${fmtNum(budget.minutesPerTrial)} min${steps}${hours};` +
      ` ${spec.seeds} seed(s) per configuration.`,
    `- Workers: ${local}${remote}.`,
    '',
    '## Search space',
    '',
    '| parameter | domain |',
    '| --- | --- |',
  ];
  for (const [k, p] of Object.entries(spec.search)) L.push(`| ${k} | ${cell(describeParam(p))} |`);
  return L;
}

/** Every trial: its state, parameters, seed, source, objective, steps, minutes and curve. */
function trialsSection(d: ReportData, now: number): string[] {
  const { spec, trials } = d;
  const names = Object.keys(spec.search);
  const L: string[] = ['', '## Trials', ''];
  L.push(
    `| # | state | ${names.join(' | ')} | seed | source | objective | steps | minutes |` +
      ` curve (${METRIC_LABEL[spec.objective.metric]} per point) |`,
  );
  L.push(`| --- | --- | ${names.map(() => '---').join(' | ')} | --- | --- | --- | --- | --- | --- |`);
  for (const t of trials) {
    const curve = [...t.points]
      .sort((a, b) => a.index - b.index)
      .map((p) => val(metricOf(p, spec.objective.metric)))
      .join(' → ');
    const params = names.map((n) => cell(fmtParam(t.params[n]))).join(' | ');
    const mins = (((t.endedAt ?? now) - t.startedAt) / 60_000).toFixed(1);
    L.push(
      `| ${t.number} | ${t.state} | ${params} | ${t.seed} | ${t.source} | ${val(t.value)} | ${t.steps}` +
        ` | ${mins} | ${curve || '—'} |`,
    );
  }
  L.push('');
  return L;
}

/** What was pruned (and why), what failed, and the parameters' importance. */
function outcomesSection(d: ReportData): string[] {
  const { spec, trials } = d;
  const L: string[] = [];
  const pruned = prunedExplanations(trials, spec);
  L.push('## Pruned', '');
  if (pruned.length === 0) L.push('No trial was pruned.', '');
  for (const p of pruned) L.push(`- Trial ${p.trial.number} (${paramsLabel(p.trial.params)}): ${cell(p.text)}`);
  if (pruned.length) L.push('');
  const failed = trials.filter((t) => t.state === 'failed');
  if (failed.length) {
    L.push('## Failed', '');
    for (const t of failed)
      L.push(`- Trial ${t.number} (${paramsLabel(t.params)}): ${cell(t.note ?? 'no cause recorded')}`);
    L.push('');
  }
  L.push('## Parameter importance', '');
  if (d.importance) {
    L.push(
      'Optuna `get_param_importances` over the completed trials:',
      '',
      '| parameter | importance |',
      '| --- | --- |',
    );
    for (const [k, v] of Object.entries(d.importance).sort((a, b) => b[1] - a[1])) L.push(`| ${k} | ${fmtNum(v)} |`);
  } else L.push('Needs at least two completed trials.');
  L.push('');
  return L;
}

/** The research agent's analysis and decisions (nothing when it took no part). */
function agentSection(d: ReportData): string[] {
  if (!d.analysis && !d.decisions.length) return [];
  const L: string[] = ['## Research agent', ''];
  if (d.analysis) L.push(d.analysis, '');
  for (const x of d.decisions) {
    const trial = x.trial !== null ? ` trial ${x.trial}` : '';
    const params = x.payload['params'] ? ` — ${cell(JSON.stringify(x.payload['params']))}` : '';
    L.push(
      `- ${new Date(x.t).toISOString().slice(11, 19)} **${x.kind}** (${x.status})${trial}: ${cell(x.rationale)}${params}`,
    );
  }
  L.push('');
  return L;
}

const escHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Minimal Markdown → HTML for the report's own constructs: headings, quotes, lists, tables, bold, code. */
export function mdToHtml(md: string): string {
  const inline = (s: string): string =>
    escHtml(s)
      .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\\\|/g, '|');
  const out: string[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^(#{1,3}) (.*)$/.exec(line);
    if (h) out.push(`<h${h[1]!.length}>${inline(h[2]!)}</h${h[1]!.length}>`);
    else if (line.startsWith('> ')) out.push(`<blockquote>${inline(line.slice(2))}</blockquote>`);
    else if (line.startsWith('- ')) {
      const items: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('- '); i++) items.push(`<li>${inline(lines[i]!.slice(2))}</li>`);
      i--;
      out.push(`<ul>${items.join('')}</ul>`);
    } else if (line.startsWith('| ')) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i]!.startsWith('| '); i++)
        rows.push(lines[i]!.slice(2, -2).split(/ (?<!\\)\| /));
      i--;
      const [head, , ...body] = rows;
      out.push(
        `<table><thead><tr>${(head ?? []).map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${body.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`,
      );
    } else if (line.startsWith('![')) continue;
    else if (line.trim() !== '') out.push(`<p>${inline(line)}</p>`);
  }
  return out.join('\n');
}

function html(d: ReportData, md: string, svgs: Record<string, string>): string {
  const body = mdToHtml(md.split('\n## Charts')[0] ?? md);
  const figures = Object.values(svgs)
    .map((s) => `<figure>${s}</figure>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campaign ${escHtml(d.spec.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1f2328}
table{border-collapse:collapse;margin:.5rem 0;font-size:13px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left}th{background:#f6f8fa}
blockquote{border-left:4px solid #d0d7de;margin:0;padding:0 1rem;color:#57606a}code{background:#f6f8fa;padding:0 3px}
.charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;border:1px solid #d0d7de;border-radius:6px;padding:6px}
</style></head><body>
${body}
<h2>Charts</h2>
<div class="charts">
${figures}
</div>
</body></html>
`;
}
