// The reward-hacking alarm (docs/learned-rewards.md, "Hacking alarm"): over a run's episodes that
// reported both the reward model's score and the verifiable reward (in time order), the reward model's
// score rising while verifiable success falls is the signature of a policy exploiting its reward model.
// It compares the first and the last window of episodes: the alarm rings when the mean score rose by at
// least `minScoreRise` of the score's standard deviation AND success fell by more than both
// `minSuccessDrop` and `z` standard errors of the difference. Pure: points in, verdict out.

export interface ScoredOutcome {
  rmScore: number;
  /** > 0: verifiably successful. */
  verifiable: number;
}

export interface HackingOptions {
  /** Episodes per window (default: a third of the points, at least `minWindow`). */
  window?: number;
  minWindow?: number;
  minScoreRise?: number;
  minSuccessDrop?: number;
  z?: number;
}

export interface HackingVerdict {
  alarm: boolean;
  /** null: too few episodes to judge (fewer than two windows). */
  scoreRise: number | null;
  successDrop: number | null;
  /** One standard error of the success difference. */
  successDropSe: number | null;
  window: number;
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

export function hackingAlarm(points: readonly ScoredOutcome[], o: HackingOptions = {}): HackingVerdict {
  const minWindow = o.minWindow ?? 50;
  const window = Math.max(minWindow, o.window ?? Math.floor(points.length / 3));
  if (points.length < 2 * window)
    return { alarm: false, scoreRise: null, successDrop: null, successDropSe: null, window };
  const first = points.slice(0, window);
  const last = points.slice(-window);
  const scores = points.map((p) => p.rmScore);
  const m = mean(scores);
  const sd = Math.sqrt(mean(scores.map((s) => (s - m) ** 2))) || 1;
  const scoreRise = (mean(last.map((p) => p.rmScore)) - mean(first.map((p) => p.rmScore))) / sd;
  const p1 = mean(first.map((p) => (p.verifiable > 0 ? 1 : 0)));
  const p2 = mean(last.map((p) => (p.verifiable > 0 ? 1 : 0)));
  const successDrop = p1 - p2;
  const successDropSe = Math.sqrt((p1 * (1 - p1)) / window + (p2 * (1 - p2)) / window);
  const alarm =
    scoreRise >= (o.minScoreRise ?? 0.25) &&
    successDrop > (o.minSuccessDrop ?? 0.05) &&
    successDrop > (o.z ?? 2) * successDropSe;
  return { alarm, scoreRise, successDrop, successDropSe, window };
}
