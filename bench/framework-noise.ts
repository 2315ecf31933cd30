// Pure figures of the `train` bench's framework comparison with their noise (issue 25, study 4): each
// framework's train-reward curve on the shared policy, *standardised by task template* (in every bin each
// framework's per-template means are weighted by the template mix of all frameworks' episodes there, so a
// framework whose clients happened to draw more hard templates is not read as a worse framework), each
// cell with its standard error; the differences between frameworks with theirs; and the value each figure
// takes from noise alone (every framework's true curve equal), so that a measured MAD can be read against
// what the sampling of that many episodes produces anyway. The SEs of the MADs are a parametric
// bootstrap: every cell redrawn from a normal with its mean and SE, the figure computed again.
import { createPrng, type Prng } from '../src/shared/prng';
import type { EndedTrainEpisode } from './train-stats';

/** An ended train episode with its stratum (the task's template; any label that groups tasks by difficulty). */
export type StratifiedEpisode = EndedTrainEpisode & { stratum: string };

export interface Figure {
  value: number;
  /** Its standard error (bootstrap). */
  se: number;
  /** Its mean when every framework's true curve is the same (bootstrap): the noise floor. */
  noise: number;
}

export interface FrameworkNoise {
  /** Bin edges over weight versions, as frameworkCurves draws them. */
  edges: number[];
  frameworks: string[];
  /** Template-standardised mean reward per framework per bin (null: no episode there). */
  adjusted: Record<string, (number | null)[]>;
  /** The standard error of each adjusted cell. */
  se: Record<string, (number | null)[]>;
  /** Largest SE of a difference between two frameworks' cells in one bin. */
  maxCellDiffSe: number;
  /** Largest over frameworks of the mean over bins of |framework − all| (all: the mean of the frameworks). */
  madVsAll: Figure;
  /** Largest over pairs of the mean over bins of |framework A − framework B|. */
  pairwiseMad: Figure;
  /** The pair whose curve heights (mean over bins) differ most, that difference (A − B) and its SE. */
  height: { a: string; b: string; diff: number; se: number };
}

interface Cell {
  mean: number;
  variance: number;
}

const sum = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);

/** The mean and the variance of a cell's mean (sample variance / n; a lone episode counts as p(1−p) ≤ 0.25). */
function cellOf(rewards: number[]): Cell {
  const n = rewards.length;
  const mean = sum(rewards) / n;
  const s2 = n > 1 ? sum(rewards.map((r) => (r - mean) ** 2)) / (n - 1) : 0.25;
  return { mean, variance: s2 / n };
}

/** A standard normal draw (Box–Muller). */
function normal(rng: Prng): number {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

type Curves = Record<string, (number | null)[]>;

function madBetween(a: (number | null)[], b: (number | null)[]): number | null {
  const d: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] != null && b[i] != null) d.push(Math.abs(a[i]! - b[i]!));
  return d.length > 0 ? sum(d) / d.length : null;
}

/** The two MAD figures of a set of curves. */
function mads(frameworks: string[], c: Curves, bins: number): { vsAll: number; pairwise: number } {
  const all = Array.from({ length: bins }, (_, b) => {
    const xs = frameworks.map((f) => c[f]![b]!).filter((x): x is number => x !== null);
    return xs.length > 0 ? sum(xs) / xs.length : null;
  });
  let vsAll = 0;
  let pairwise = 0;
  for (const f of frameworks) vsAll = Math.max(vsAll, madBetween(c[f]!, all) ?? 0);
  for (let i = 0; i < frameworks.length; i++)
    for (let j = i + 1; j < frameworks.length; j++)
      pairwise = Math.max(pairwise, madBetween(c[frameworks[i]!]!, c[frameworks[j]!]!) ?? 0);
  return { vsAll, pairwise };
}

const sd = (xs: number[]): number => {
  const m = sum(xs) / xs.length;
  return Math.sqrt(sum(xs.map((x) => (x - m) ** 2)) / Math.max(1, xs.length - 1));
};

/**
 * Framework curves standardised by stratum, with SEs and noise floors. `edges` are the bins' version
 * edges (bin i: versions [edges[i], edges[i+1])); `draws` bootstrap draws from a generator seeded by `seed`.
 */
export function frameworkNoise(
  episodes: StratifiedEpisode[],
  frameworks: string[],
  edges: number[],
  draws = 2000,
  seed = 1,
): FrameworkNoise {
  const bins = edges.length - 1;
  const binOf = (v: number): number => {
    for (let i = bins - 1; i >= 0; i--) if (v >= edges[i]!) return i;
    return 0;
  };
  // rewards[bin][stratum][framework]
  const rewards = Array.from({ length: bins }, () => new Map<string, Map<string, number[]>>());
  const known = new Set(frameworks);
  for (const e of episodes) {
    if (!known.has(e.framework)) continue;
    const byStratum = rewards[binOf(e.version)]!;
    const byFramework = byStratum.get(e.stratum) ?? new Map<string, number[]>();
    byStratum.set(e.stratum, byFramework);
    const list = byFramework.get(e.framework) ?? [];
    list.push(e.reward);
    byFramework.set(e.framework, list);
  }
  const adjusted: Curves = {};
  const se: Curves = {};
  for (const f of frameworks) {
    adjusted[f] = [];
    se[f] = [];
    for (let b = 0; b < bins; b++) {
      // The bin's stratum weights: every framework's episodes together; strata this framework never
      // played there are left out and the rest renormalised.
      let weight = 0;
      let mean = 0;
      let variance = 0;
      const strata = [...rewards[b]!.entries()];
      const total = sum(strata.map(([, byF]) => sum([...byF.values()].map((r) => r.length))));
      const parts: { w: number; cell: Cell }[] = [];
      for (const [, byF] of strata) {
        const mine = byF.get(f);
        if (!mine || mine.length === 0) continue;
        const w = sum([...byF.values()].map((r) => r.length)) / total;
        parts.push({ w, cell: cellOf(mine) });
        weight += w;
      }
      if (parts.length === 0) {
        adjusted[f].push(null);
        se[f].push(null);
        continue;
      }
      for (const { w, cell } of parts) {
        mean += (w / weight) * cell.mean;
        variance += (w / weight) ** 2 * cell.variance;
      }
      adjusted[f].push(mean);
      se[f].push(Math.sqrt(variance));
    }
  }
  let maxCellDiffSe = 0;
  let height: FrameworkNoise['height'] | null = null;
  for (let i = 0; i < frameworks.length; i++)
    for (let j = i + 1; j < frameworks.length; j++) {
      const [a, b] = [frameworks[i]!, frameworks[j]!];
      const diffs: number[] = [];
      const vars: number[] = [];
      for (let k = 0; k < bins; k++) {
        const [ma, mb, sa, sb] = [adjusted[a]![k], adjusted[b]![k], se[a]![k], se[b]![k]];
        if (ma == null || mb == null || sa == null || sb == null) continue;
        diffs.push(ma - mb);
        vars.push(sa ** 2 + sb ** 2);
        maxCellDiffSe = Math.max(maxCellDiffSe, Math.sqrt(sa ** 2 + sb ** 2));
      }
      if (diffs.length === 0) continue;
      const diff = sum(diffs) / diffs.length;
      if (!height || Math.abs(diff) > Math.abs(height.diff))
        height = { a, b, diff, se: Math.sqrt(sum(vars)) / diffs.length };
    }
  const observed = mads(frameworks, adjusted, bins);
  // Bootstrap: around the observed cells (SE) and around one common curve per bin (noise floor).
  const common = Array.from({ length: bins }, (_, b) => {
    const xs = frameworks.map((f) => adjusted[f]![b]!).filter((x): x is number => x !== null);
    return xs.length > 0 ? sum(xs) / xs.length : 0;
  });
  const rng = createPrng(seed);
  const redraw = (centre: (f: string, b: number) => number): Curves =>
    Object.fromEntries(
      frameworks.map((f) => [
        f,
        adjusted[f]!.map((m, b) => (m === null ? null : centre(f, b) + se[f]![b]! * normal(rng))),
      ]),
    );
  const around: { vsAll: number; pairwise: number }[] = [];
  const nulls: { vsAll: number; pairwise: number }[] = [];
  for (let d = 0; d < draws; d++) {
    around.push(
      mads(
        frameworks,
        redraw((f, b) => adjusted[f]![b]!),
        bins,
      ),
    );
    nulls.push(
      mads(
        frameworks,
        redraw((_, b) => common[b]!),
        bins,
      ),
    );
  }
  const figure = (key: 'vsAll' | 'pairwise'): Figure => ({
    value: observed[key],
    se: sd(around.map((x) => x[key])),
    noise: sum(nulls.map((x) => x[key])) / Math.max(1, draws),
  });
  return {
    edges,
    frameworks,
    adjusted,
    se,
    maxCellDiffSe,
    madVsAll: figure('vsAll'),
    pairwiseMad: figure('pairwise'),
    height: height ?? { a: frameworks[0] ?? '', b: frameworks[1] ?? '', diff: 0, se: 0 },
  };
}

const cell = (m: number | null, s: number | null): string =>
  m === null || s === null ? '–'.padStart(13) : `${m.toFixed(3)} ± ${s.toFixed(3)}`.padStart(13);

/** The per-bin table of the standardised curves, each cell ± its SE. */
export function noiseTable(n: FrameworkNoise): string {
  const head = ['versions'.padEnd(11), ...n.frameworks.map((f) => f.padStart(13))].join(' ');
  const rows = n.edges
    .slice(0, -1)
    .map((lo, b) =>
      [
        `v${lo}–${n.edges[b + 1]! - 1}`.padEnd(11),
        ...n.frameworks.map((f) => cell(n.adjusted[f]![b]!, n.se[f]![b]!)),
      ].join(' '),
    );
  return [head, ...rows].join('\n');
}
