// Pure figures of the `train` bench: per-framework reward curves binned by the weight version that
// sampled each episode, their mean absolute differences, and the binomial noise of a success rate.

export interface EndedTrainEpisode {
  episodeId: string;
  framework: string;
  clientId: string;
  taskId: string;
  reward: number;
  success: boolean;
  /** The weight version the episode was sampled with (its claim's). */
  version: number;
}

export interface FrameworkCurves {
  /** Bin edges: bin i holds versions [edges[i], edges[i+1]). */
  edges: number[];
  frameworks: string[];
  /** Mean train reward per framework per bin (null: no episode of that framework there). */
  curves: Record<string, (number | null)[]>;
  /** Episodes per framework per bin. */
  counts: Record<string, number[]>;
  /** The all-framework curve: the mean of the framework means in each bin. */
  all: (number | null)[];
  /** Per framework: mean over bins of |framework − all|. */
  madVsAll: Record<string, number>;
  /** Largest of madVsAll: the bench's framework_curve_mad. */
  maxMadVsAll: number;
  /** Largest mean absolute difference between two frameworks' curves. */
  maxPairwiseMad: number;
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

/** Splits versions [0, maxVersion] into `bins` equal ranges and averages each framework's rewards. */
export function frameworkCurves(episodes: EndedTrainEpisode[], frameworks: string[], bins: number): FrameworkCurves {
  const maxV = episodes.reduce((m, e) => Math.max(m, e.version), 0);
  const n = Math.max(1, Math.min(bins, maxV + 1));
  const edges = Array.from({ length: n + 1 }, (_, i) => Math.round((i * (maxV + 1)) / n));
  const binOf = (v: number): number => {
    for (let i = n - 1; i >= 0; i--) if (v >= edges[i]!) return i;
    return 0;
  };
  const sums: Record<string, number[]> = {};
  const counts: Record<string, number[]> = {};
  for (const f of frameworks) {
    sums[f] = new Array<number>(n).fill(0);
    counts[f] = new Array<number>(n).fill(0);
  }
  for (const e of episodes) {
    if (!sums[e.framework]) continue;
    const b = binOf(e.version);
    sums[e.framework]![b]! += e.reward;
    counts[e.framework]![b]! += 1;
  }
  const curves: Record<string, (number | null)[]> = {};
  for (const f of frameworks) curves[f] = sums[f]!.map((s, b) => (counts[f]![b]! > 0 ? s / counts[f]![b]! : null));
  const all = Array.from({ length: n }, (_, b) => {
    const xs = frameworks.map((f) => curves[f]![b]!).filter((x): x is number => x !== null);
    return xs.length > 0 ? mean(xs) : null;
  });
  const madBetween = (a: (number | null)[], c: (number | null)[]): number => {
    const d: number[] = [];
    for (let b = 0; b < n; b++) if (a[b] != null && c[b] != null) d.push(Math.abs(a[b]! - c[b]!));
    return mean(d);
  };
  const madVsAll: Record<string, number> = {};
  for (const f of frameworks) madVsAll[f] = madBetween(curves[f]!, all);
  let maxPairwiseMad = 0;
  for (let i = 0; i < frameworks.length; i++)
    for (let j = i + 1; j < frameworks.length; j++)
      maxPairwiseMad = Math.max(maxPairwiseMad, madBetween(curves[frameworks[i]!]!, curves[frameworks[j]!]!));
  return {
    edges,
    frameworks,
    curves,
    counts,
    all,
    madVsAll,
    maxMadVsAll: Math.max(0, ...Object.values(madVsAll)),
    maxPairwiseMad,
  };
}

/** The binomial standard error of a success rate p measured on n episodes. */
export function binomialSe(p: number, n: number): number {
  return n > 0 ? Math.sqrt((p * (1 - p)) / n) : 0;
}

/** Whether two success rates agree within `z` standard errors of their difference. */
export function withinNoise(a: { p: number; n: number }, b: { p: number; n: number }, z = 2): boolean {
  const se = Math.sqrt(binomialSe(a.p, a.n) ** 2 + binomialSe(b.p, b.n) ** 2);
  return Math.abs(a.p - b.p) <= z * se;
}

const fmt = (x: number | null): string => (x === null ? '   –  ' : x.toFixed(3).padStart(6));

/** The per-bin table of the framework curves (reward means, episode counts in brackets). */
export function curvesTable(c: FrameworkCurves): string {
  const head = ['versions'.padEnd(11), ...c.frameworks.map((f) => f.padStart(14)), 'all'.padStart(8)].join(' ');
  const rows = c.all.map((a, b) => {
    const range = `v${c.edges[b]}–${c.edges[b + 1]! - 1}`.padEnd(11);
    return [
      range,
      ...c.frameworks.map((f) => `${fmt(c.curves[f]![b]!)} (${String(c.counts[f]![b]!).padStart(4)})`.padStart(14)),
      fmt(a).padStart(8),
    ].join(' ');
  });
  const mad = [
    'MAD vs all'.padEnd(11),
    ...c.frameworks.map((f) => c.madVsAll[f]!.toFixed(3).padStart(14)),
    ''.padStart(8),
  ].join(' ');
  return [head, ...rows, mad].join('\n');
}
