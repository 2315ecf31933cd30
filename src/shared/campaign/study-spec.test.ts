import { describe, expect, it } from 'vitest';
import { analyseStudy, seedsText, studyHtml, studyMarkdown, studyValue } from './study-report';
import {
  armCampaign,
  comparisons,
  isStudyDoc,
  parseStudy,
  scaleStudy,
  studyCampaign,
  studyPlan,
  withSeeds,
  type StudySpec,
} from './study-spec';
import { CampaignSpecSchema } from './spec';
import type { TrialRow } from './trials';

const doc = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'study',
  name: 'merge',
  question: 'Does merging cost quality?',
  base: { task: 'calculator-agent', training: { batch: 4 } },
  arms: { none: { training: { merge: 'none' } }, linear: { training: { merge: 'linear', lr: 3e-4 } } },
  seeds: 2,
  budget: { minutes: 4, updates: 30 },
  ...extra,
});

function ok(d: unknown): StudySpec {
  const r = parseStudy(d);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.spec;
}

const trial = (arm: string, n: number, y0: number, y1: number, steps = 10): TrialRow => ({
  campaignId: 'merge',
  number: n,
  state: 'complete',
  params: { arm },
  seed: n,
  source: 'optimizer',
  rationale: null,
  value: y1,
  points: [0, 1].map((index) => ({
    index,
    resource: index,
    step: index * steps,
    elapsedS: index * 60,
    evalSuccess: index === 0 ? y0 : y1,
    evalReward: null,
    evalEpisodes: 16,
    trainReward: null,
  })),
  note: null,
  worker: 'local-1',
  runDir: null,
  steps,
  startedAt: 0,
  endedAt: 120_000,
});

describe('study file', () => {
  it('parses arms, defaults and the plan', () => {
    const s = ok(doc());
    expect(isStudyDoc(doc())).toBe(true);
    expect(isStudyDoc({ name: 'x' })).toBe(false);
    expect(s.metric).toEqual({ metric: 'eval_success', summary: 'final', direction: 'maximize' });
    expect(comparisons(s)).toEqual([['linear', 'none']]);
    expect(studyPlan(s).map((p) => `${p.number}:${p.arm}:${p.seedIndex}`)).toEqual([
      '0:none:0',
      '1:linear:0',
      '2:none:1',
      '3:linear:1',
    ]);
    const c = armCampaign(s, 'linear');
    expect(c.base.training).toEqual({ batch: 4, merge: 'linear', lr: 3e-4 });
    expect(c.budget).toMatchObject({ minutesPerTrial: 4, stepsPerTrial: 30, trials: 4 });
    expect(c.optimizer.pruner.type).toBe('none');
    // What the store keeps and the Campaigns panel parses: a valid campaign with one `arm` choice.
    expect(CampaignSpecSchema.parse(studyCampaign(s)).search).toEqual({ arm: { choice: ['none', 'linear'] } });
  });

  it('names every problem', () => {
    const r = parseStudy(doc({ arms: { a: { training: { merge: 'zip' } } }, compare: [['a', 'b']] }));
    expect(r.ok).toBe(false);
    const bad = parseStudy(doc({ compare: [['none', 'nope']], arms: { none: { mix: 0.5 }, linear: {} } }));
    expect(bad.ok ? [] : bad.errors).toEqual([
      'compare.0: no arm named "nope"',
      'arms.none: mix applies to the cocktail task only',
    ]);
  });

  it('scales the budget and names the scale', () => {
    const s = scaleStudy(ok(doc()), 0.25);
    expect(s.name).toBe('merge-x0.25');
    expect(s.budget).toEqual({ minutes: 1, updates: 8 });
    expect(() => scaleStudy(s, 0)).toThrow(/positive/);
    const two = withSeeds(s, 2);
    expect(two.name).toBe('merge-x0.25-s2');
    expect(studyPlan(two)).toHaveLength(4);
    expect(() => withSeeds(s, 0)).toThrow(/seeds/);
  });

  it('reports per-arm mean ± SE, the verdict and the power statement', () => {
    const s = ok(doc({ metric: { summary: 'gain' }, effect: 0.05 }));
    const trials = [
      trial('none', 0, 0.2, 0.4),
      trial('linear', 1, 0.2, 0.6),
      trial('none', 2, 0.2, 0.42),
      trial('linear', 3, 0.2, 0.62),
    ];
    expect(studyValue(s, trials[0]!)).toBeCloseTo(0.2, 12);
    const a = analyseStudy(s, trials);
    expect(a.arms.map((r) => r.spread?.mean.toFixed(3))).toEqual(['0.210', '0.410']);
    expect(a.comparisons[0]?.difference?.verdict.kind).toBe('a_better');
    const md = studyMarkdown(s, a, 0);
    expect(md).toContain('| linear − none | 20.0 pp ± 1.4 pp | linear better');
    expect(md).toContain('seeds per arm');
    const five = { ...s, arms: { ...s.arms, none: { ...s.arms['none']!, seeds: 5 } } };
    expect(seedsText(five)).toBe(`2 seeds per arm (seeds 0…1), 5 for none (seeds 0…4)`);
    expect(studyHtml(md, s.name)).toContain('<td>linear − none</td>');
    // Every trial in its own row: before training, last evaluation, the value counted (here the gain).
    expect(a.trials.map((t) => `${t.number}:${t.arm}:${t.before}:${t.last}`)).toEqual([
      '0:none:0.2:0.4',
      '1:linear:0.2:0.6',
      '2:none:0.2:0.42',
      '3:linear:0.2:0.62',
    ]);
    expect(md).toContain('| 1 | linear | 1 | 20.0 pp | 60.0 pp | 40.0 pp | 10 | 1.0 | complete |');
  });

  it('reports the dispersion over all arms when asked', () => {
    const s = ok(doc({ dispersion: true, arms: { a: {}, b: {}, c: {} } }));
    const trials = [0, 1, 2, 3, 4, 5].map((n) =>
      trial(['a', 'b', 'c'][n % 3]!, n, 0, 0.5 + (n % 3) * 0.05 + n * 0.001),
    );
    const a = analyseStudy(s, trials);
    expect(a.dispersion?.maxDiff.pair).toEqual(['a', 'c']);
    const md = studyMarkdown(s, a, 0);
    expect(md).toMatch(/largest pairwise difference: 10\.2 pp ± \d+\.\d pp \(a vs c\)/);
    expect(md).toContain('mean absolute deviation');
  });
});
