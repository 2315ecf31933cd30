import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { meanArea, objectiveOf, type TrialPoint } from './objective';
import { bestConfiguration, configurations, countStates, spread, type TrialRow } from './trials';

const point = (index: number, evalSuccess: number | null, trainReward: number | null = null): TrialPoint => ({
  index,
  resource: index,
  step: index * 3,
  elapsedS: index * 30,
  evalSuccess,
  evalReward: evalSuccess,
  evalEpisodes: 16,
  trainReward,
});

describe('objective', () => {
  const pts = [point(0, 0.2), point(1, 0.4), point(2, null), point(3, 0.3)];
  it('final, best and area under the curve', () => {
    expect(objectiveOf(pts, { metric: 'eval_success', summary: 'final', direction: 'maximize' })).toBe(0.3);
    expect(objectiveOf(pts, { metric: 'eval_success', summary: 'best', direction: 'maximize' })).toBe(0.4);
    expect(objectiveOf(pts, { metric: 'eval_success', summary: 'best', direction: 'minimize' })).toBe(0.2);
    // trapezoids: (0.2+0.4)/2·1 + (0.4+0.3)/2·2 = 1.0 over a span of 3
    expect(objectiveOf(pts, { metric: 'eval_success', summary: 'auc', direction: 'maximize' })).toBeCloseTo(
      1.0 / 3,
      12,
    );
    expect(objectiveOf(pts, { metric: 'train_reward', summary: 'final', direction: 'maximize' })).toBeNull();
  });

  it('the area of a constant curve is the constant; it lies between the extremes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ x: fc.integer({ min: 0, max: 50 }), y: fc.double({ min: -5, max: 5, noNaN: true }) }), {
          minLength: 1,
          maxLength: 20,
        }),
        (ps) => {
          const a = meanArea(ps)!;
          expect(a).toBeGreaterThanOrEqual(Math.min(...ps.map((p) => p.y)) - 1e-9);
          expect(a).toBeLessThanOrEqual(Math.max(...ps.map((p) => p.y)) + 1e-9);
          expect(meanArea(ps.map((p) => ({ ...p, y: 0.7 })))).toBeCloseTo(0.7, 9);
        },
      ),
    );
  });
});

const trial = (
  number: number,
  params: TrialRow['params'],
  state: TrialRow['state'],
  value: number | null,
): TrialRow => ({
  campaignId: 'c',
  number,
  state,
  params,
  seed: 0,
  source: 'optimizer',
  rationale: null,
  value,
  points: [],
  note: null,
  worker: 'local',
  runDir: null,
  steps: 0,
  startedAt: 0,
  endedAt: null,
});

describe('trial summaries', () => {
  it('mean ± standard error', () => {
    expect(spread([])).toBeNull();
    expect(spread([0.5])).toEqual({ n: 1, mean: 0.5, se: null });
    const s = spread([0.2, 0.4, 0.6])!;
    expect(s.mean).toBeCloseTo(0.4, 12);
    expect(s.se).toBeCloseTo(0.2 / Math.sqrt(3), 12);
  });

  it('groups seeds by configuration and picks the best mean', () => {
    const trials = [
      trial(0, { lr: 1 }, 'complete', 0.5),
      trial(1, { lr: 1 }, 'complete', 0.3),
      trial(2, { lr: 2 }, 'complete', 0.45),
      trial(3, { lr: 3 }, 'pruned', 0.1),
      trial(4, { lr: 2 }, 'interrupted', null),
      trial(5, { lr: 2 }, 'failed', null),
    ];
    const cs = configurations(trials);
    expect(cs.map((c) => [c.params['lr'], c.trials, c.spread?.n ?? 0, c.pruned, c.failed])).toEqual([
      [1, [0, 1], 2, 0, 0],
      [2, [2, 5], 1, 0, 1],
      [3, [3], 0, 1, 0],
    ]);
    expect(
      bestConfiguration(trials, { metric: 'eval_success', summary: 'final', direction: 'maximize' })?.params,
    ).toEqual({ lr: 2 });
    expect(
      bestConfiguration(trials, { metric: 'eval_success', summary: 'final', direction: 'minimize' })?.params,
    ).toEqual({ lr: 1 });
    expect(countStates(trials)).toEqual({ trials: 5, running: 0, completed: 3, pruned: 1, failed: 1, interrupted: 1 });
  });
});
