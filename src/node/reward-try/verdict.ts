// The verdict of `reward try` (pure): the old vs new reward distributions, the episodes whose
// reward or success changed (largest change first), per-episode errors, and what the new rewards
// would have done to the advantage groups of the last update — groups (a task's episodes) whose
// rewards were all equal and now differ gain signal; groups that differed and are now all equal
// lose it (GRPO gives them zero advantage).
import type { ChangedEpisode, Distribution, RewardVerdict } from '../../shared/inner-loop';
import type { RewardOutcome } from './runner';

export type { ChangedEpisode, Distribution, RewardVerdict };

export interface TriedEpisode {
  episodeId: string;
  taskId: string | null;
  codeVersion: string | null;
  oldReward: number | null;
  oldSuccess: boolean | null;
}

const EPS = 1e-9;
const BINS = 10;

export function distribution(values: readonly number[], lo: number, hi: number): Distribution {
  const n = values.length;
  if (n === 0) return { count: 0, mean: null, std: null, min: null, max: null, histogram: [] };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  const width = (hi - lo) / BINS || 1;
  const histogram = Array.from({ length: BINS }, (_, b) => ({
    lo: lo + b * width,
    hi: lo + (b + 1) * width,
    count: 0,
  }));
  for (const v of values) histogram[Math.min(BINS - 1, Math.max(0, Math.floor((v - lo) / width)))]!.count++;
  return { count: n, mean, std, min: Math.min(...values), max: Math.max(...values), histogram };
}

const allEqual = (xs: readonly number[]): boolean => xs.every((x) => Math.abs(x - xs[0]!) <= EPS);

/** Groups (by task) of ≥ 2 scored episodes that gain or lose reward variance. */
export function signalChange(rows: readonly { taskId: string | null; oldReward: number | null; newReward: number }[]): {
  considered: number;
  gainSignal: string[];
  loseSignal: string[];
} {
  const groups = new Map<string, { old: number[]; new: number[] }>();
  for (const r of rows) {
    if (r.taskId === null || r.oldReward === null) continue;
    const g = groups.get(r.taskId) ?? { old: [], new: [] };
    g.old.push(r.oldReward);
    g.new.push(r.newReward);
    groups.set(r.taskId, g);
  }
  const gainSignal: string[] = [];
  const loseSignal: string[] = [];
  let considered = 0;
  for (const [task, g] of groups) {
    if (g.old.length < 2) continue;
    considered++;
    if (allEqual(g.old) && !allEqual(g.new)) gainSignal.push(task);
    if (!allEqual(g.old) && allEqual(g.new)) loseSignal.push(task);
  }
  return { considered, gainSignal: gainSignal.sort(), loseSignal: loseSignal.sort() };
}

/** `lastUpdate`: the episode ids the last update consumed (null: group the tried episodes themselves). */
export function rewardVerdict(
  episodes: readonly TriedEpisode[],
  outcomes: readonly RewardOutcome[],
  lastUpdate: ReadonlySet<string> | null = null,
): RewardVerdict {
  if (outcomes.length !== episodes.length)
    throw new Error(`${outcomes.length} outcomes for ${episodes.length} episodes`);
  const errors: RewardVerdict['errors'] = [];
  const scored: (TriedEpisode & { newReward: number; newSuccess: boolean | null })[] = [];
  episodes.forEach((e, i) => {
    const o = outcomes[i]!;
    if (o.ok) scored.push({ ...e, newReward: o.reward, newSuccess: o.success ?? null });
    else errors.push({ episodeId: e.episodeId, error: o.error });
  });
  const olds = scored.flatMap((e) => (e.oldReward === null ? [] : [e.oldReward]));
  const news = scored.map((e) => e.newReward);
  const all = [...olds, ...news];
  const lo = all.length ? Math.min(...all) : 0;
  const hi = all.length ? Math.max(...all) : 1;
  const changed = scored
    .filter(
      (e) =>
        e.oldReward === null ||
        Math.abs(e.newReward - e.oldReward) > EPS ||
        (e.newSuccess !== null && e.oldSuccess !== null && e.newSuccess !== e.oldSuccess),
    )
    .map((e) => ({
      episodeId: e.episodeId,
      taskId: e.taskId,
      oldReward: e.oldReward,
      newReward: e.newReward,
      delta: e.oldReward === null ? null : e.newReward - e.oldReward,
      oldSuccess: e.oldSuccess,
      newSuccess: e.newSuccess,
    }))
    .sort((a, b) => Math.abs(b.delta ?? Infinity) - Math.abs(a.delta ?? Infinity));
  const inUpdate = lastUpdate && scored.some((e) => lastUpdate.has(e.episodeId));
  const groupRows = inUpdate ? scored.filter((e) => lastUpdate.has(e.episodeId)) : scored;
  return {
    ok: errors.length === 0,
    episodes: episodes.length,
    scored: scored.length,
    old: distribution(olds, lo, hi),
    new: distribution(news, lo, hi),
    changed,
    errors,
    groups: { ...signalChange(groupRows), scope: inUpdate ? 'last_update' : 'tried' },
  };
}
