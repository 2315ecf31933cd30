// A trial's evaluation points and the objective computed from them: the metric of each point
// (held-out success, held-out reward, or the train reward since the previous point), summarised as
// the last value, the best, or the area under the curve. The value reported to the pruner at a
// point is the same summary over the points so far, so trials are compared like with like.
import { z } from 'zod';
import type { Objective } from './spec';

export const TrialPointSchema = z.object({
  /** 0: before training (never reported to the pruner); 1, 2, …: the evaluation points. */
  index: z.number().int().min(0),
  /** The pruner's resource: the index, or the training step with `everySteps`. */
  resource: z.number().int().min(0),
  /** Training steps done when the evaluation started. */
  step: z.number().int().min(0),
  elapsedS: z.number().min(0),
  evalSuccess: z.number().nullable(),
  evalReward: z.number().nullable(),
  evalEpisodes: z.number().int().min(0),
  /** Mean train reward of the steps since the previous point (null: no step). */
  trainReward: z.number().nullable(),
  /** A task of several roles: each role's own eval success (the proposer: a valid question; the solver: solved). */
  roles: z.record(z.string(), z.number()).optional(),
});
export type TrialPoint = z.infer<typeof TrialPointSchema>;

export function metricOf(p: TrialPoint, metric: Objective['metric']): number | null {
  const v = metric === 'eval_success' ? p.evalSuccess : metric === 'eval_reward' ? p.evalReward : p.trainReward;
  return v !== null && Number.isFinite(v) ? v : null;
}

/** Mean height of the curve through (x, y) by trapezoids; one point is its own value. */
export function meanArea(points: readonly { x: number; y: number }[]): number | null {
  if (points.length === 0) return null;
  if (points.length === 1) return points[0]!.y;
  const sorted = [...points].sort((a, b) => a.x - b.x);
  const span = sorted.at(-1)!.x - sorted[0]!.x;
  if (span <= 0) return sorted.reduce((s, p) => s + p.y, 0) / sorted.length;
  let area = 0;
  for (let i = 1; i < sorted.length; i++)
    area += ((sorted[i]!.y + sorted[i - 1]!.y) / 2) * (sorted[i]!.x - sorted[i - 1]!.x);
  return area / span;
}

/** The objective over the points given (null when none has a value). */
export function objectiveOf(points: readonly TrialPoint[], o: Objective): number | null {
  const xs = points.flatMap((p) => {
    const y = metricOf(p, o.metric);
    return y === null ? [] : [{ x: p.index, y }];
  });
  if (xs.length === 0) return null;
  if (o.summary === 'final') return [...xs].sort((a, b) => a.x - b.x).at(-1)!.y;
  if (o.summary === 'best')
    return o.direction === 'maximize' ? Math.max(...xs.map((p) => p.y)) : Math.min(...xs.map((p) => p.y));
  return meanArea(xs);
}

/** Whether `a` is better than `b` under the objective's direction. */
export const better = (o: Objective, a: number, b: number): boolean => (o.direction === 'maximize' ? a > b : a < b);
