// A study's analysis and report (pure): each trial's value of the study metric (the final, best or
// mean point, or the held-out gain over the point before training), per arm the mean ± standard
// error over seeds with the updates done and the minutes trained, the comparisons with their
// verdicts and power statements, and optionally the dispersion over all arms; as Markdown and HTML.
import { objectiveOf, metricOf } from './objective';
import { compare, dispersion, power, spread, type Difference, type Dispersion, type PowerStatement } from './study';
import { armSeeds, comparisons, type StudySpec } from './study-spec';
import type { Spread, TrialRow } from './trials';

export interface ArmResult {
  arm: string;
  description: string;
  values: number[];
  spread: Spread | null;
  updates: Spread | null;
  minutes: Spread | null;
  failed: number;
  running: number;
  /** A task of several roles: each role's own final held-out success over seeds (empty for one role). */
  roles: Record<string, Spread | null>;
}

export interface ComparisonResult {
  a: string;
  b: string;
  difference: Difference | null;
  power: PowerStatement;
}

/** One trial as the report's per-trial table shows it. */
export interface TrialSummary {
  number: number;
  arm: string;
  seed: number;
  state: TrialRow['state'];
  /** The metric at the evaluation before training, and at the last one (null: none yet). */
  before: number | null;
  last: number | null;
  /** The study metric's value for this trial (what the arm's mean is over). */
  value: number | null;
  updates: number;
  minutes: number;
}

export interface StudyAnalysis {
  arms: ArmResult[];
  trials: TrialSummary[];
  comparisons: ComparisonResult[];
  dispersion: Dispersion | null;
}

/** A trial's value of the study metric (null: no usable point). */
export function studyValue(spec: StudySpec, t: TrialRow): number | null {
  const m = spec.metric;
  if (m.summary !== 'gain') return objectiveOf(t.points, { ...m, summary: m.summary });
  const sorted = [...t.points].sort((a, b) => a.index - b.index);
  const first = sorted.find((p) => p.index === 0);
  const last = sorted.at(-1);
  if (!first || !last || last.index === 0) return null;
  const y0 = metricOf(first, m.metric);
  const y1 = metricOf(last, m.metric);
  return y0 === null || y1 === null ? null : y1 - y0;
}

/** Trials are the campaign's rows with `params.arm`; only completed ones count. */
/** Each role's own success at the last evaluation point of every completed trial that has one. */
function roleSpreads(done: readonly TrialRow[]): Record<string, Spread | null> {
  const last = done.flatMap((t) => {
    const p = [...t.points].sort((x, y) => x.index - y.index).at(-1);
    return p?.roles ? [p.roles] : [];
  });
  const names = [...new Set(last.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(names.map((n) => [n, spread(last.flatMap((r) => (r[n] === undefined ? [] : [r[n]])))]));
}

export function analyseStudy(spec: StudySpec, trials: readonly TrialRow[]): StudyAnalysis {
  const arms: ArmResult[] = Object.entries(spec.arms).map(([arm, a]) => {
    const mine = trials.filter((t) => t.params['arm'] === arm && t.state !== 'interrupted');
    const done = mine.filter((t) => t.state === 'complete');
    const values = done.flatMap((t) => {
      const v = studyValue(spec, t);
      return v === null ? [] : [v];
    });
    return {
      arm,
      description: a.description,
      values,
      spread: spread(values),
      updates: spread(done.map((t) => t.steps)),
      // Training minutes: the last evaluation point's time since the clients started.
      minutes: spread(done.map((t) => Math.max(0, ...t.points.map((p) => p.elapsedS)) / 60)),
      failed: mine.filter((t) => t.state === 'failed').length,
      running: mine.filter((t) => t.state === 'running').length,
      roles: roleSpreads(done),
    };
  });
  const byArm = new Map(arms.map((a) => [a.arm, a]));
  const higher = spec.metric.direction === 'maximize';
  const fmt = formatter(spec);
  const point = (t: TrialRow, which: 'first' | 'last'): number | null => {
    const sorted = [...t.points].sort((x, y) => x.index - y.index);
    const p = which === 'first' ? sorted.find((x) => x.index === 0) : sorted.at(-1);
    return p ? metricOf(p, spec.metric.metric) : null;
  };
  const studyTrials = trials
    .filter((t) => typeof t.params['arm'] === 'string' && t.state !== 'interrupted')
    .sort((x, y) => x.number - y.number)
    .map((t) => ({
      number: t.number,
      arm: String(t.params['arm']),
      seed: t.seed,
      state: t.state,
      before: point(t, 'first'),
      last: t.points.some((p) => p.index > 0) ? point(t, 'last') : null,
      value: t.state === 'complete' ? studyValue(spec, t) : null,
      updates: t.steps,
      minutes: Math.max(0, ...t.points.map((p) => p.elapsedS)) / 60,
    }));
  return {
    arms,
    trials: studyTrials,
    comparisons: comparisons(spec).map(([a, b]) => {
      const va = { arm: a, values: byArm.get(a)?.values ?? [] };
      const vb = { arm: b, values: byArm.get(b)?.values ?? [] };
      return { a, b, difference: compare(va, vb, higher), power: power(va, vb, spec.effect, fmt) };
    }),
    dispersion: spec.dispersion ? dispersion(arms.map((a) => ({ arm: a.arm, values: a.values }))) : null,
  };
}

/** Success rates in percentage points; other metrics with three decimals. */
export function formatter(spec: StudySpec): (x: number) => string {
  return spec.metric.metric === 'eval_success' ? (x) => `${(x * 100).toFixed(1)} pp` : (x) => x.toFixed(3);
}

const pm = (s: Spread | null, f: (x: number) => string): string =>
  s === null ? '—' : s.se === null ? `${f(s.mean)} (1 seed)` : `${f(s.mean)} ± ${f(s.se)}`;

const metricName = (spec: StudySpec): string =>
  `${spec.metric.summary === 'gain' ? 'held-out gain in ' : `${spec.metric.summary} `}${spec.metric.metric}`;

function budgetText(spec: StudySpec): string {
  const b = spec.budget;
  const caps = [
    ...(b.updates !== undefined ? [`${b.updates} updates`] : []),
    ...(b.episodes !== undefined ? [`${b.episodes} training episodes`] : []),
  ];
  return `${b.minutes} min of training per trial${caps.length ? `, or ${caps.join(' or ')} if sooner` : ''}`;
}

/** "3 seeds per arm (seeds 1…3)", and the arms that run another count ("5 for default"). */
export function seedsText(spec: StudySpec): string {
  const range = (n: number): string => `seeds ${spec.base.worker.seed}…${spec.base.worker.seed + n - 1}`;
  const others = Object.keys(spec.arms)
    .filter((arm) => armSeeds(spec, arm) !== spec.seeds)
    .map((arm) => `${armSeeds(spec, arm)} for ${arm} (${range(armSeeds(spec, arm))})`);
  return `${spec.seeds} seeds per arm (${range(spec.seeds)})${others.length ? `, ${others.join(', ')}` : ''}`;
}

/** The report as Markdown lines (the HTML is rendered from the same lines). */
export function studyMarkdown(spec: StudySpec, a: StudyAnalysis, generatedAt: number): string {
  const f = formatter(spec);
  const two = (x: number): string => x.toFixed(2);
  const L: string[] = [`# Study: ${spec.name}`, ''];
  if (spec.question) L.push(`**Question.** ${spec.question}`, '');
  if (spec.claim) L.push(`**The paper's claim.** ${spec.claim}`, '');
  L.push(
    `**Setup.** Task \`${spec.base.task}\`, ${seedsText(spec)}, the same budget for every arm: ${budgetText(spec)}; ` +
      `${spec.base.eval.episodes} held-out episodes per evaluation. Metric: ${metricName(spec)}.`,
    '',
    '## Arms',
    '',
    `| arm | what | ${metricName(spec)} (mean ± SE) | seeds | updates done | minutes trained | failed |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of a.arms) {
    const running = r.running ? ` (+${r.running} running)` : '';
    L.push(
      `| ${r.arm} | ${r.description || '—'} | ${pm(r.spread, f)} | ${r.values.length}${running} | ` +
        `${pm(r.updates, (x) => x.toFixed(1))} | ${pm(r.minutes, two)} | ${r.failed} |`,
    );
  }
  L.push(...roleLines(a.arms));
  L.push(
    '',
    '## Comparisons',
    '',
    '| A − B | difference ± SE (Welch) | verdict | power |',
    '| --- | --- | --- | --- |',
  );
  for (const c of a.comparisons) {
    const d = c.difference;
    const diff = d === null ? '—' : d.se === null ? `${f(d.diff)}` : `${f(d.diff)} ± ${f(d.se)}`;
    L.push(`| ${c.a} − ${c.b} | ${diff} | ${d?.verdict.text ?? 'no values yet'} | ${c.power.text} |`);
  }
  L.push(...trialLines(a.trials, f));
  if (a.dispersion) {
    const x = a.dispersion;
    const se = (v: number | null): string => (v === null ? '' : ` ± ${f(v)}`);
    L.push(
      '',
      '## Dispersion over all arms',
      '',
      `- largest pairwise difference: ${f(x.maxDiff.value)}${se(x.maxDiff.se)} (${x.maxDiff.pair.join(' vs ')})`,
      `- mean absolute deviation of the arm means (MAD): ${f(x.mad.value)}${se(x.mad.se)}`,
      `- standard errors by a parametric bootstrap (2,000 draws of each arm's mean from its mean ± SE)`,
    );
    if (x.noise)
      L.push(
        `- noise alone (every arm's mean drawn from the grand mean ± its own SE: no true difference) gives a ` +
          `largest difference of ${f(x.noise.expectedMaxDiff)} and a MAD of ${f(x.noise.expectedMad)} on average; ` +
          `the observed ones or larger come up in ${pct(x.noise.pMaxDiff)} and ${pct(x.noise.pMad)} of such draws`,
      );
  }
  L.push(
    '',
    '## Reading it',
    '',
    `A verdict is given when Welch's t-test finds the difference (two-sided p < 0.05, at the Welch–Satterthwaite ` +
      `degrees of freedom: with 2 seeds per arm that takes 4–13 standard errors, with 10 about 2.1); otherwise no ` +
      `difference is detectable at this budget — which is not evidence of no difference. The power column says ` +
      `how many seeds per arm a difference of ${f(spec.effect)} would need to be found 4 times in 5 (t-test).`,
    '',
    `Generated ${new Date(generatedAt).toISOString()}.`,
    '',
  );
  return L.join('\n');
}

/** Every trial: the evaluation before training, the last one, the value that counts, updates, minutes. */
function trialLines(trials: readonly TrialSummary[], f: (x: number) => string): string[] {
  if (trials.length === 0) return [];
  const v = (x: number | null): string => (x === null ? '—' : f(x));
  return [
    '',
    '## Trials',
    '',
    'Every trial of the study: the held-out evaluation before training (where arms share a model they start ' +
      'from the same weights, and this column shows the evaluation’s own noise), the last one, the value the ' +
      'arm’s mean is over, and the updates and minutes of training.',
    '',
    '| trial | arm | seed | before training | last evaluation | value | updates | minutes | state |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...trials.map(
      (t) =>
        `| ${t.number} | ${t.arm} | ${t.seed} | ${v(t.before)} | ${v(t.last)} | ${v(t.value)} | ${t.updates} | ` +
        `${t.minutes.toFixed(1)} | ${t.state} |`,
    ),
  ];
}

/** Each role's own final success per arm (tasks of several roles; none otherwise). */
function roleLines(arms: readonly ArmResult[]): string[] {
  const names = [...new Set(arms.flatMap((r) => Object.keys(r.roles)))];
  if (names.length === 0) return [];
  const pp = (x: number): string => `${(x * 100).toFixed(1)} pp`;
  return [
    '',
    '## Each role',
    '',
    'Final held-out success of each role on its own (the proposer: a valid question; the solver: the right ' +
      'answer), mean ± SE over seeds. The metric above is joint success (a valid question, solved). Updates ' +
      'done are summed over the trial’s workers (one per role, or one shared).',
    '',
    `| arm | ${names.join(' | ')} |`,
    `| --- | ${names.map(() => '---').join(' | ')} |`,
    ...arms.map((r) => `| ${r.arm} | ${names.map((n) => pm(r.roles[n] ?? null, pp)).join(' | ')} |`),
  ];
}

const pct = (p: number): string => `${Math.round(p * 100)} %`;

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const inline = (s: string): string =>
  esc(s)
    .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')
    .replace(/`(.+?)`/g, '<code>$1</code>');

/** The Markdown report as a self-contained HTML page (headings, paragraphs, lists, tables). */
export function studyHtml(markdown: string, title: string): string {
  const out: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('# ')) out.push(`<h1>${inline(l.slice(2))}</h1>`);
    else if (l.startsWith('## ')) out.push(`<h2>${inline(l.slice(3))}</h2>`);
    else if (l.startsWith('- ')) out.push(`<li>${inline(l.slice(2))}</li>`);
    else if (l.startsWith('| ')) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i]!.startsWith('| '); i++)
        rows.push(
          lines[i]!.slice(2, -2)
            .split(' | ')
            .map((c) => c.trim()),
        );
      i--;
      const [head, , ...body] = rows;
      out.push(
        `<table><tr>${(head ?? []).map((c) => `<th>${inline(c)}</th>`).join('')}</tr>` +
          body.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('') +
          '</table>',
      );
    } else if (l.trim()) out.push(`<p>${inline(l)}</p>`);
  }
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>` +
    'body{font:14px system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}' +
    'table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}' +
    `</style></head><body>${out.join('\n')}</body></html>\n`
  );
}
