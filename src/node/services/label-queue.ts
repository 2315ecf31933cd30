// The label queue's core (pure): which episodes, or pairs of one task group, to label next. With a
// reward model's scores, the most informative are where it is least sure — a point whose P(good) =
// σ(score − center) is nearest ½, a pair whose P(a ≻ b) = σ(s_a − s_b) is nearest ½ (Bradley–Terry);
// without scores every proposal is a coin flip and the newest come first. Mode `top` audits instead:
// the episodes the model scores highest, where a policy optimised against it goes first and where its
// false positives (reward hacking) show. Labelled episodes (pairs) are left out, and no episode
// appears twice in one list.
import { sigmoid } from '../../shared/reward-model';
import type { QueueItem } from '../../shared/rewards-api';

export interface QueueCandidate {
  episodeId: string;
  taskId: string | null;
  /** The reward model's score; null without a model. */
  score: number | null;
}

export interface QueueRequest {
  /** Newest first. */
  candidates: readonly QueueCandidate[];
  labelledPoints: ReadonlySet<string>;
  /** Keys from `pairKey`. */
  labelledPairs: ReadonlySet<string>;
  mode: 'points' | 'pairs' | 'top';
  /** The score at which a point is a coin flip (0 for a pointwise model). */
  center: number;
  limit: number;
  pairKey: (a: string, b: string) => string;
}

/** 1 at p = ½, 0 at p ∈ {0, 1}. */
export const uncertainty = (p: number): number => Math.max(0, Math.min(1, 1 - Math.abs(2 * p - 1)));

export function proposeLabels(r: QueueRequest): QueueItem[] {
  return r.mode === 'pairs' ? proposePairs(r) : proposePoints(r, r.mode === 'top');
}

type Ranked = { c: QueueCandidate; i: number; u: number };
/** Highest score first, unscored last. */
const byScore = (a: Ranked, b: Ranked): number =>
  a.c.score === b.c.score ? 0 : b.c.score === null ? -1 : a.c.score === null ? 1 : b.c.score - a.c.score;
const byUncertainty = (a: Ranked, b: Ranked): number => b.u - a.u;

/** Unlabelled single episodes: least certain first, or (`top`) highest score first; ties newest first. */
function proposePoints(r: QueueRequest, top: boolean): QueueItem[] {
  const first = top ? byScore : byUncertainty;
  return r.candidates
    .filter((c) => !r.labelledPoints.has(c.episodeId))
    .map((c, i): Ranked => ({ c, i, u: c.score === null ? 1 : uncertainty(sigmoid(c.score - r.center)) }))
    .sort((a, b) => first(a, b) || a.i - b.i)
    .slice(0, r.limit)
    .map(({ c, u }) => ({ kind: 'point', episodeId: c.episodeId, taskId: c.taskId, score: c.score, uncertainty: u }));
}

function proposePairs(r: QueueRequest): QueueItem[] {
  const groups = new Map<string, { c: QueueCandidate; i: number }[]>();
  r.candidates.forEach((c, i) => {
    if (c.taskId === null) return;
    const g = groups.get(c.taskId) ?? [];
    g.push({ c, i });
    groups.set(c.taskId, g);
  });
  const options: { a: QueueCandidate; b: QueueCandidate; u: number; recency: number }[] = [];
  for (const members of groups.values()) {
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        const a = members[x]!;
        const b = members[y]!;
        if (r.labelledPairs.has(r.pairKey(a.c.episodeId, b.c.episodeId))) continue;
        const u = a.c.score === null || b.c.score === null ? 1 : uncertainty(sigmoid(a.c.score - b.c.score));
        options.push({ a: a.c, b: b.c, u, recency: a.i + b.i });
      }
    }
  }
  options.sort((p, q) => q.u - p.u || p.recency - q.recency);
  const used = new Set<string>();
  const out: QueueItem[] = [];
  for (const o of options) {
    if (out.length >= r.limit) break;
    if (used.has(o.a.episodeId) || used.has(o.b.episodeId)) continue;
    used.add(o.a.episodeId);
    used.add(o.b.episodeId);
    out.push({
      kind: 'pair',
      episodeId: o.a.episodeId,
      otherEpisodeId: o.b.episodeId,
      taskId: o.a.taskId,
      scores: o.a.score === null || o.b.score === null ? null : [o.a.score, o.b.score],
      uncertainty: o.u,
    });
  }
  return out;
}
