import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REWARD_SCALES, computeAdvantages, mean, std } from './advantages';

const items = [
  { groupKey: 'a', reward: 1 },
  { groupKey: 'b', reward: 0 },
  { groupKey: 'a', reward: 0 },
  { groupKey: 'a', reward: 1 },
  { groupKey: 'b', reward: 0 },
];

describe('computeAdvantages', () => {
  it('GRPO normalises within each task group', () => {
    const adv = computeAdvantages(items, { estimator: 'grpo', epsilon: 0 });
    const s = std([1, 0, 1]);
    expect(adv[0]).toBeCloseTo((1 - 2 / 3) / s, 10);
    expect(adv[2]).toBeCloseTo((0 - 2 / 3) / s, 10);
    // A zero-variance group carries no signal.
    expect(adv[1]).toBe(0);
    expect(adv[4]).toBe(0);
  });

  it("GRPO's batch scale keeps a group's small spread small; none leaves the distance undivided", () => {
    // Group p: a clear win and loss; group q: two scores a hair apart (a reward model's noise).
    const scored = [
      { groupKey: 'p', reward: 1 },
      { groupKey: 'p', reward: -1 },
      { groupKey: 'q', reward: 0.01 },
      { groupKey: 'q', reward: -0.01 },
    ];
    const group = computeAdvantages(scored, { estimator: 'grpo', epsilon: 0 });
    expect(group[2]).toBeCloseTo(1, 10); // the hair is blown up to a full unit
    const batch = computeAdvantages(scored, { estimator: 'grpo', epsilon: 0, scale: 'batch' });
    const s = std([1, -1, 0.01, -0.01]);
    expect(batch[0]).toBeCloseTo(1 / s, 10);
    expect(batch[2]).toBeCloseTo(0.01 / s, 10);
    expect(computeAdvantages(scored, { estimator: 'grpo', scale: 'none' })).toEqual([1, -1, 0.01, -0.01]);
    // Zero-variance groups stay exactly 0 under every scale.
    for (const scale of ['group', 'batch', 'none'] as const)
      expect(computeAdvantages(items, { estimator: 'grpo', scale })[1]).toBe(0);
  });

  it('RLOO subtracts the mean of the other members', () => {
    const adv = computeAdvantages(items, { estimator: 'rloo' });
    expect(adv[0]).toBeCloseTo(1 - 0.5, 12);
    expect(adv[2]).toBeCloseTo(0 - 1, 12);
    expect(computeAdvantages([{ groupKey: 'x', reward: 3 }], { estimator: 'rloo' })).toEqual([0]);
  });

  it('REINFORCE subtracts the batch mean', () => {
    const adv = computeAdvantages(items, { estimator: 'reinforce' });
    expect(adv[0]).toBeCloseTo(1 - 0.4, 12);
  });

  it("REINFORCE subtracts each role's own mean when episodes name their roles", () => {
    const game = [
      { groupKey: 'p1', role: 'proposer', reward: 1 },
      { groupKey: 'p1-solve', role: 'solver', reward: 0.1 },
      { groupKey: 'p2', role: 'proposer', reward: 0.5 },
      { groupKey: 'p2-solve', role: 'solver', reward: 1 },
      { groupKey: 'x', reward: 0.3 }, // no role: its own baseline (the batch's role-less episodes)
    ];
    const adv = computeAdvantages(game, { estimator: 'reinforce' });
    expect(adv[0]).toBeCloseTo(0.25, 12);
    expect(adv[1]).toBeCloseTo(-0.45, 12);
    expect(adv[2]).toBeCloseTo(-0.25, 12);
    expect(adv[3]).toBeCloseTo(0.45, 12);
    expect(adv[4]).toBe(0);
    // One role throughout is the batch mean, as without roles.
    const one = items.map((x) => ({ ...x, role: 'solver' }));
    expect(computeAdvantages(one, { estimator: 'reinforce' })).toEqual(
      computeAdvantages(items, { estimator: 'reinforce' }),
    );
  });

  it('advantages sum to zero within every group (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ groupKey: fc.constantFrom('a', 'b', 'c'), reward: fc.double({ min: -5, max: 5, noNaN: true }) }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.constantFrom('grpo' as const, 'rloo' as const),
        fc.constantFrom(...REWARD_SCALES),
        (xs, estimator, scale) => {
          const adv = computeAdvantages(xs, { estimator, scale });
          for (const key of ['a', 'b', 'c']) {
            const sum = adv.filter((_, i) => xs[i]!.groupKey === key).reduce((a, b) => a + b, 0);
            expect(Math.abs(sum)).toBeLessThan(1e-6 * (1 + xs.length));
          }
        },
      ),
    );
    expect(mean([])).toBe(0);
  });
});
