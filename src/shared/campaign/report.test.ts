import { describe, expect, it } from 'vitest';
import { evalCurvesChart, parallelChart, paramScatterChart } from './charts/charts';
import { sceneToSvg } from './charts/scene';
import { fmtNum, logScale, niceTicks } from './charts/scales';
import { buildReport, computeSeconds, mdToHtml, prunedExplanations, type ReportData } from './report';
import { parseCampaign, type CampaignSpec } from './spec';
import type { TrialRow } from './trials';

const parsed = parseCampaign({
  name: 'rep',
  question: 'Which lr <best>?',
  base: { task: 'calculator-agent' },
  budget: { trials: 4, minutesPerTrial: 2 },
  seeds: 2,
  search: { lr: { float: [1e-5, 1e-3], log: true }, groupSize: { choice: [2, 4] } },
});
if (!parsed.ok) throw new Error(parsed.errors.join());
const spec: CampaignSpec = parsed.spec;

const pt = (index: number, v: number) => ({
  index,
  resource: index,
  step: index * 2,
  elapsedS: index * 30,
  evalSuccess: v,
  evalReward: v,
  evalEpisodes: 16,
  trainReward: v,
});
const trial = (
  number: number,
  lr: number,
  state: TrialRow['state'],
  value: number | null,
  points: ReturnType<typeof pt>[],
  note: string | null = null,
): TrialRow => ({
  campaignId: 'rep',
  number,
  state,
  params: { lr, groupSize: 2 },
  seed: number % 2,
  source: 'optimizer',
  rationale: null,
  value,
  points,
  note,
  worker: 'local-1',
  runDir: null,
  steps: 6,
  startedAt: 0,
  endedAt: 120_000,
});
const trials = [
  trial(0, 1e-4, 'complete', 0.5, [pt(1, 0.4), pt(2, 0.5)]),
  trial(1, 1e-4, 'complete', 0.3, [pt(1, 0.35), pt(2, 0.3)]),
  trial(2, 5e-4, 'pruned', 0.1, [pt(1, 0.1)], 'stopped by the successive_halving pruner at evaluation 1'),
  trial(3, 2e-5, 'failed', null, [], 'the worker process exited (SIGKILL)'),
];
const data: ReportData = {
  summary: {
    campaignId: 'rep',
    name: 'rep',
    question: spec.question,
    state: 'done',
    dir: '/x',
    createdAt: 0,
    endedAt: 600_000,
    live: false,
    trials: 4,
    budgetTrials: 4,
    running: 0,
    completed: 2,
    pruned: 1,
    failed: 1,
    bestValue: 0.5,
    wallS: 600,
    note: null,
  },
  spec,
  trials,
  curves: { 0: [{ step: 1, elapsedS: 10, rewardMean: 0.2, successRate: 0.2 }] },
  importance: { lr: 0.8, groupSize: 0.2 },
  analysis: 'lr matters.',
  decisions: [],
  generatedAt: 600_000,
};

describe('campaign report', () => {
  it('has the question, the best configuration with its seeds spread, pruning reasons, failures and importance', () => {
    const r = buildReport(data);
    expect(r.markdown).toContain('> Which lr <best>?');
    expect(r.markdown).toContain('**lr=1e-4 groupSize=2** — objective (final held-out success) **0.4 ± 0.1 (n=2)**');
    expect(r.markdown).toMatch(
      /Trial 2 .*pruner at evaluation 1 — its held-out success there 0\.1; the other trials at that point: median 0\.35, best 0\.4 \(n=2\)/,
    );
    expect(r.markdown).toContain('Trial 3 (lr=2e-5 groupSize=2): the worker process exited (SIGKILL)');
    expect(r.markdown).toContain('| lr | 0.8 |');
    expect(r.markdown).toContain('compute 8.0 min of worker time');
    expect(Object.keys(r.charts)).toEqual([
      'eval-curves.svg',
      'train-curves.svg',
      'parallel.svg',
      'objective-vs-lr.svg',
      'objective-vs-groupSize.svg',
      'importance.svg',
    ]);
    // The HTML escapes what came from the file and inlines every chart.
    expect(r.html).toContain('Which lr &lt;best&gt;?');
    expect(r.html.match(/<svg /g)?.length).toBe(6);
    expect(computeSeconds(trials, 0)).toBe(480);
    expect(prunedExplanations(trials, spec)).toHaveLength(1);
  });

  it('draws pruned trials dashed, failed ones crossed, and every trial with points', () => {
    const curves = evalCurvesChart(trials, spec.objective, null);
    expect(curves.marks).toBe(3);
    expect(curves.items.some((i) => i.kind === 'line' && i.dash !== undefined)).toBe(true);
    const scatter = paramScatterChart(trials, 'lr', spec.search['lr']!, spec.objective);
    expect(scatter.marks).toBe(4);
    expect(scatter.items.filter((i) => i.kind === 'cross')).toHaveLength(1);
    expect(parallelChart(trials, spec.search, spec.objective).marks).toBe(3);
    const svg = sceneToSvg({
      width: 10,
      height: 10,
      title: 'a"b',
      items: [{ kind: 'text', x: 1, y: 1, text: '<x & y>' }],
      marks: 0,
    });
    expect(svg).toContain('aria-label="a&quot;b"');
    expect(svg).toContain('&lt;x &amp; y&gt;');
  });

  it('scales and numbers', () => {
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(logScale([1e-5, 1e-3], [0, 100]).ticks).toEqual([1e-5, 1e-4, 1e-3]);
    expect([fmtNum(3.5e-4), fmtNum(0.25), fmtNum(1234567)]).toEqual(['3.5e-4', '0.25', '1.2e6']);
    expect(mdToHtml('| a | b |\n| --- | --- |\n| 1 | x \\| y |')).toBe(
      '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>x | y</td></tr></tbody></table>',
    );
  });
});
