// Pure figures of the `train` bench's framework comparison with their noise (issue 25, study 4): each
// framework's train-reward curve on the shared policy, per bin of weight versions, *standardised by
// stratum* (in every bin each framework's per-stratum means are weighted by the stratum mix of all
// frameworks' episodes there, over the strata every framework played in that bin), so that a framework
// whose clients happened to draw harder tasks is not read as a worse framework.
//
// Strata are task templates, or — when the clients play the same task sequence (the bench's --paired) —
// the tasks themselves, which cancels the tasks' difficulty from every difference. Episodes of one task
// group (a client's episodes of one task) are correlated, so the noise is measured by resampling whole
// units: a bootstrap over task groups (templates) or over tasks (paired), within each bin, gives every
// figure's standard error. Paired, a framework's clients that run behind the others play each task after
// updates that already trained on that task's earlier groups, which raises their success; the paired
// estimate therefore adjusts for each group's version offset within its task (exposureAdjusted) — unless the
// clients ran in lock-step (every framework plays a task at the same weights), where nothing is to adjust.
// Each bootstrap draw's deviation from the measured curves, laid on one common curve, gives the
// value each figure takes when the frameworks do not differ at all (its noise floor) and how often noise
// alone reaches the value measured (p).
import { createPrng, type Prng } from '../src/shared/prng';
import type { EndedTrainEpisode } from './train-stats';

/** An ended train episode with its stratum (task template, or task) and its group (client and task). */
export type StratifiedEpisode = EndedTrainEpisode & { stratum: string; group: string };

export interface Figure {
  value: number;
  /** Its standard error (bootstrap). */
  se: number;
  /** Its mean when the frameworks do not differ (centred bootstrap): the noise floor. */
  noise: number;
  /** The fraction of centred bootstrap draws at or above the value: how often noise alone reaches it. */
  p: number;
}

export interface FrameworkNoise {
  /** Bin edges over weight versions, as frameworkCurves draws them. */
  edges: number[];
  frameworks: string[];
  design: Design;
  /** Paired (not lock-step): per bin, the reward gained per weight version a task group is played later than the task's others. */
  exposureSlope: (number | null)[];
  /** Standardised mean reward per framework per bin (null: no stratum every framework played there). */
  adjusted: Record<string, (number | null)[]>;
  /** The standard error of each cell (bootstrap). */
  se: Record<string, (number | null)[]>;
  /** Episodes in the common strata per framework per bin (what the cells are means of). */
  counts: Record<string, number[]>;
  /** Largest standard error of a difference between two frameworks' cells in one bin. */
  maxCellDiffSe: number;
  /** Largest over frameworks of the mean over bins of |framework − all| (all: the mean of the frameworks). */
  madVsAll: Figure;
  /** Largest over pairs of the mean over bins of |framework A − framework B|. */
  pairwiseMad: Figure;
  /** The pair whose curve heights (mean over bins) differ most, that difference (A − B) and its SE. */
  height: { a: string; b: string; diff: number; se: number };
}

/** One task group's episodes in one bin. */
interface Group {
  framework: string;
  stratum: string;
  sum: number;
  n: number;
  /** The sum of its episodes' weight versions. */
  versions: number;
}

type Curves = Record<string, (number | null)[]>;

const push = <T>(m: Map<string, T[]>, key: string, x: T): void => {
  const list = m.get(key);
  if (list) list.push(x);
  else m.set(key, [x]);
};
const sum = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);
const sd = (xs: number[]): number => {
  const m = sum(xs) / xs.length;
  return Math.sqrt(sum(xs.map((x) => (x - m) ** 2)) / Math.max(1, xs.length - 1));
};

interface Cell {
  sum: number;
  n: number;
  versions: number;
}

/** Per stratum played by every framework: each framework's cell (its groups there together). */
function commonCells(groups: readonly Group[], frameworks: readonly string[]): Map<string, Cell>[] {
  const cells = new Map<string, Map<string, Cell>>();
  for (const g of groups) {
    const byF = cells.get(g.stratum) ?? new Map<string, Cell>();
    cells.set(g.stratum, byF);
    const c = byF.get(g.framework) ?? { sum: 0, n: 0, versions: 0 };
    c.sum += g.sum;
    c.n += g.n;
    c.versions += g.versions;
    byF.set(g.framework, c);
  }
  return [...cells.values()].filter((byF) => frameworks.every((f) => (byF.get(f)?.n ?? 0) > 0));
}

/** Solves the square system A x = b (Gaussian elimination with partial pivoting); null if singular. */
function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-12) return null;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * Paired strata (tasks): each framework's effect within task, adjusted for *exposure*. The frameworks'
 * clients play a task a few updates apart, and an update that trained on a task's earlier groups raises
 * the success of its later ones (measured: +0.7–1.3 pp per version later), so a framework that runs
 * behind the others would look better. Least squares over (task, framework) cells, within task:
 * reward deviation = framework effect (summing to 0) + slope × version offset; the curve is the common
 * level plus the effect. Returns the effects and the slope, or null when the system is singular.
 */
function exposureAdjusted(
  common: readonly Map<string, Cell>[],
  frameworks: readonly string[],
  withSlope = true,
): { effects: number[]; slope: number | null } | null {
  const k = frameworks.length;
  const dim = withSlope ? k : k - 1; // k − 1 contrasts and the slope
  const xtx = Array.from({ length: dim }, () => new Array<number>(dim).fill(0));
  const xty = new Array<number>(dim).fill(0);
  for (const byF of common) {
    const cells = frameworks.map((f) => byF.get(f)!);
    const r = cells.map((c) => c.sum / c.n);
    const v = cells.map((c) => c.versions / c.n);
    const rBar = sum(r) / k;
    const vBar = sum(v) / k;
    cells.forEach((_, f) => {
      // contrasts: effect_j for j < k − 1, effect_{k−1} = −Σ effect_j
      const x = Array.from({ length: k - 1 }, (_, j) => (f === j ? 1 : 0) - (f === k - 1 ? 1 : 0));
      if (withSlope) x.push(v[f]! - vBar);
      const y = r[f]! - rBar;
      for (let i = 0; i < dim; i++) {
        xty[i]! += x[i]! * y;
        for (let j = 0; j < dim; j++) xtx[i]![j]! += x[i]! * x[j]!;
      }
    });
  }
  const beta = solve(xtx, xty);
  if (!beta) return null;
  const contrasts = beta.slice(0, k - 1);
  return { effects: [...contrasts, -sum(contrasts)], slope: withSlope ? beta[k - 1]! : null };
}

/** Each framework's standardised mean over the strata all frameworks played, and its episode count. */
function binCurve(
  groups: readonly Group[],
  frameworks: readonly string[],
  design: Design,
): Map<string, { mean: number; n: number }> {
  const common = commonCells(groups, frameworks);
  const out = new Map<string, { mean: number; n: number }>();
  if (common.length === 0) return out;
  if (design !== 'templates' && frameworks.length > 1) {
    const fit = exposureAdjusted(common, frameworks, design === 'paired');
    if (fit) {
      const level =
        sum(common.map((byF) => sum(frameworks.map((f) => byF.get(f)!.sum / byF.get(f)!.n)))) /
        (common.length * frameworks.length);
      frameworks.forEach((f, i) =>
        out.set(f, { mean: level + fit.effects[i]!, n: sum(common.map((byF) => byF.get(f)!.n)) }),
      );
      return out;
    }
  }
  const weights = common.map((byF) => sum([...byF.values()].map((c) => c.n)));
  const total = sum(weights);
  for (const f of frameworks)
    out.set(f, {
      mean: sum(common.map((byF, i) => (weights[i]! / total) * (byF.get(f)!.sum / byF.get(f)!.n))),
      n: sum(common.map((byF) => byF.get(f)!.n)),
    });
  return out;
}

function curvesOf(bins: readonly (readonly Group[])[], frameworks: readonly string[], design: Design): Curves {
  const per = bins.map((g) => binCurve(g, frameworks, design));
  return Object.fromEntries(frameworks.map((f) => [f, per.map((m) => m.get(f)?.mean ?? null)]));
}

function madBetween(a: (number | null)[], b: (number | null)[]): number {
  const d: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] != null && b[i] != null) d.push(Math.abs(a[i]! - b[i]!));
  return d.length > 0 ? sum(d) / d.length : 0;
}

function heightDiff(a: (number | null)[], b: (number | null)[]): number {
  const d: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] != null && b[i] != null) d.push(a[i]! - b[i]!);
  return d.length > 0 ? sum(d) / d.length : 0;
}

/** The all-framework curve: the mean of the frameworks' cells in each bin. */
function allCurve(frameworks: readonly string[], c: Curves): (number | null)[] {
  return (c[frameworks[0]!] ?? []).map((_, b) => {
    const xs = frameworks.map((f) => c[f]![b]!).filter((x): x is number => x !== null);
    return xs.length > 0 ? sum(xs) / xs.length : null;
  });
}

/** The two MAD figures of a set of curves. */
function mads(frameworks: readonly string[], c: Curves): { vsAll: number; pairwise: number } {
  const all = allCurve(frameworks, c);
  let vsAll = 0;
  let pairwise = 0;
  for (const f of frameworks) vsAll = Math.max(vsAll, madBetween(c[f]!, all));
  for (let i = 0; i < frameworks.length; i++)
    for (let j = i + 1; j < frameworks.length; j++)
      pairwise = Math.max(pairwise, madBetween(c[frameworks[i]!]!, c[frameworks[j]!]!));
  return { vsAll, pairwise };
}

/**
 * A bootstrap draw of one bin: its units (groups, or tasks when paired) drawn with replacement. A task drawn
 * twice counts as two tasks (its stratum renamed per draw), as a template's group drawn twice counts twice.
 */
function resample(units: readonly (readonly Group[])[], rng: Prng, paired: boolean): Group[] {
  const out: Group[] = [];
  for (let i = 0; i < units.length; i++) {
    const unit = units[rng.int(0, units.length - 1)]!;
    out.push(...(paired ? unit.map((g) => ({ ...g, stratum: `${g.stratum}#${i}` })) : unit));
  }
  return out;
}

/**
 * templates: strata are task templates; paired: tasks, each framework's effect adjusted for exposure;
 * lockstep: tasks played by every framework at the same weights, so nothing to adjust (the effect within task).
 */
export type Design = 'templates' | 'paired' | 'lockstep';

export interface FrameworkNoiseOptions {
  /**
   * paired and lockstep: strata are tasks every framework's clients played (resampled whole); templates: task
   * templates, groups resampled.
   */
  design: Design;
  draws?: number;
  seed?: number;
}

/**
 * Framework curves standardised by stratum, with bootstrap SEs and noise floors. `edges`
 * are the bins' version edges (bin i: versions [edges[i], edges[i+1])).
 */
export function frameworkNoise(
  episodes: readonly StratifiedEpisode[],
  frameworks: string[],
  edges: number[],
  o: FrameworkNoiseOptions,
): FrameworkNoise {
  const draws = o.draws ?? 500;
  const { design } = o;
  const paired = design !== 'templates';
  const nBins = edges.length - 1;
  const binOf = (v: number): number => {
    for (let i = nBins - 1; i >= 0; i--) if (v >= edges[i]!) return i;
    return 0;
  };
  const known = new Set(frameworks);
  const groupMaps = Array.from({ length: nBins }, () => new Map<string, Group>());
  for (const e of episodes) {
    if (!known.has(e.framework)) continue;
    const m = groupMaps[binOf(e.version)]!;
    const g = m.get(e.group) ?? { framework: e.framework, stratum: e.stratum, sum: 0, n: 0, versions: 0 };
    g.sum += e.reward;
    g.n += 1;
    g.versions += e.version;
    m.set(e.group, g);
  }
  const bins = groupMaps.map((m) => [...m.values()]);
  // Resampling units: a task with all its frameworks' groups (paired), else one group.
  const units = bins.map((gs) => {
    if (!paired) return gs.map((g) => [g]);
    const byTask = new Map<string, Group[]>();
    for (const g of gs) push(byTask, g.stratum, g);
    return [...byTask.values()];
  });
  const measured = bins.map((gs) => binCurve(gs, frameworks, design));
  const adjusted: Curves = Object.fromEntries(frameworks.map((f) => [f, measured.map((m) => m.get(f)?.mean ?? null)]));
  const counts: Record<string, number[]> = Object.fromEntries(
    frameworks.map((f) => [f, measured.map((m) => m.get(f)?.n ?? 0)]),
  );
  const exposureSlope = bins.map((gs) =>
    design === 'paired' ? (exposureAdjusted(commonCells(gs, frameworks), frameworks)?.slope ?? null) : null,
  );
  const observed = mads(frameworks, adjusted);
  const pairs: [string, string][] = [];
  for (let i = 0; i < frameworks.length; i++)
    for (let j = i + 1; j < frameworks.length; j++) pairs.push([frameworks[i]!, frameworks[j]!]);
  let top: [string, string] = pairs[0] ?? [frameworks[0] ?? '', frameworks[0] ?? ''];
  for (const [a, b] of pairs)
    if (Math.abs(heightDiff(adjusted[a]!, adjusted[b]!)) > Math.abs(heightDiff(adjusted[top[0]]!, adjusted[top[1]]!)))
      top = [a, b];

  const rng = createPrng(o.seed ?? 1);
  const boot: Curves[] = [];
  for (let d = 0; d < draws; d++)
    boot.push(
      curvesOf(
        units.map((u) => resample(u, rng, paired)),
        frameworks,
        design,
      ),
    );
  // The null: each draw's deviation from the measured curves, laid on one common curve (the frameworks'
  // mean), is what the figures look like when the frameworks do not differ, with the design's own noise.
  const common = allCurve(frameworks, adjusted);
  const nullFigures = boot.map((c) =>
    mads(
      frameworks,
      Object.fromEntries(
        frameworks.map((f) => [
          f,
          c[f]!.map((x, b) =>
            x === null || adjusted[f]![b] == null || common[b] == null ? null : x - adjusted[f]![b]! + common[b]!,
          ),
        ]),
      ),
    ),
  );
  const bootFigures = boot.map((c) => mads(frameworks, c));
  const cellSd = (pick: (c: Curves) => number | null): number | null => {
    const xs = boot.map(pick).filter((x): x is number => x !== null);
    return xs.length > 1 ? sd(xs) : null;
  };
  const se: Curves = Object.fromEntries(
    frameworks.map((f) => [f, adjusted[f]!.map((m, b) => (m === null ? null : cellSd((c) => c[f]![b]!)))]),
  );
  let maxCellDiffSe = 0;
  for (const [a, b] of pairs)
    for (let k = 0; k < nBins; k++) {
      const s = cellSd((c) => (c[a]![k] != null && c[b]![k] != null ? c[a]![k]! - c[b]![k]! : null));
      if (s !== null) maxCellDiffSe = Math.max(maxCellDiffSe, s);
    }
  const figure = (key: 'vsAll' | 'pairwise'): Figure => ({
    value: observed[key],
    se: sd(bootFigures.map((x) => x[key])),
    noise: sum(nullFigures.map((x) => x[key])) / Math.max(1, draws),
    p: nullFigures.filter((x) => x[key] >= observed[key]).length / Math.max(1, draws),
  });
  return {
    edges,
    frameworks,
    design,
    exposureSlope,
    adjusted,
    se,
    counts,
    maxCellDiffSe,
    madVsAll: figure('vsAll'),
    pairwiseMad: figure('pairwise'),
    height: {
      a: top[0],
      b: top[1],
      diff: heightDiff(adjusted[top[0]]!, adjusted[top[1]]!),
      se: sd(boot.map((c) => heightDiff(c[top[0]]!, c[top[1]]!))),
    },
  };
}

const cell = (m: number | null, s: number | null, n: number): string =>
  m === null ? '–'.padStart(20) : `${m.toFixed(3)} ± ${(s ?? 0).toFixed(3)} (${n})`.padStart(20);

/** The per-bin table of the standardised curves, each cell ± its SE (episodes in brackets). */
export function noiseTable(n: FrameworkNoise): string {
  const head = ['versions'.padEnd(11), ...n.frameworks.map((f) => f.padStart(20))].join(' ');
  const rows = n.edges
    .slice(0, -1)
    .map((lo, b) =>
      [
        `v${lo}–${n.edges[b + 1]! - 1}`.padEnd(11),
        ...n.frameworks.map((f) => cell(n.adjusted[f]![b]!, n.se[f]![b]!, n.counts[f]![b]!)),
      ].join(' '),
    );
  return [head, ...rows].join('\n');
}
