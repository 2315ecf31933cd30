// Benchmark `distill`: the figures from the arms' held-out curves (pure). The target is the warm start
// plus 80 % of the teacher's gain; a curve reaches it at its first evaluation at or above it (and,
// less coarse than the evaluation grid, where the line to that point crosses it). Several seeds'
// curves average point by point, with the standard error of each point over the seeds.
import type { CurvePoint } from './distill-result';

/** Minutes at the first point of `curve` at or above `target` (null: never reached). */
export function minutesTo(curve: readonly CurvePoint[], target: number): number | null {
  return curve.find((p) => p.success >= target - 1e-12)?.minutes ?? null;
}

/**
 * Minutes where `curve` first crosses `target`, linearly interpolated between the last point below it
 * and the first at or above it (the first point's minutes when it starts there; null: never reached).
 */
export function crossingMinutes(curve: readonly CurvePoint[], target: number): number | null {
  const i = curve.findIndex((p) => p.success >= target - 1e-12);
  if (i < 0) return null;
  if (i === 0) return curve[0]!.minutes;
  const a = curve[i - 1]!;
  const b = curve[i]!;
  return a.minutes + ((b.minutes - a.minutes) * (target - a.success)) / (b.success - a.success);
}

/** The mean of `xs` (0 for none). */
export const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

/**
 * The point-by-point mean of several seeds' curves on one evaluation grid (each point's minutes and
 * success averaged, episodes summed), and each point's standard error over the seeds (0 for one seed).
 */
export function meanCurve(curves: readonly (readonly CurvePoint[])[]): { curve: CurvePoint[]; se: number[] } {
  if (curves.length === 0) throw new Error('no curves to average');
  const n = curves[0]!.length;
  if (curves.some((c) => c.length !== n))
    throw new Error(`curves of different lengths (${curves.map((c) => c.length).join(', ')}): not one grid`);
  const k = curves.length;
  const curve: CurvePoint[] = [];
  const se: number[] = [];
  for (let i = 0; i < n; i++) {
    const pts = curves.map((c) => c[i]!);
    const m = mean(pts.map((p) => p.success));
    curve.push({
      minutes: mean(pts.map((p) => p.minutes)),
      success: m,
      episodes: pts.reduce((s, p) => s + p.episodes, 0),
    });
    const variance = k > 1 ? pts.reduce((s, p) => s + (p.success - m) ** 2, 0) / (k - 1) : 0;
    se.push(Math.sqrt(variance / k));
  }
  return { curve, se };
}

/** Gain in percentage points from the curve's first point to its last. */
export function gainPp(curve: readonly CurvePoint[]): number {
  if (curve.length === 0) return 0;
  return 100 * (curve.at(-1)!.success - curve[0]!.success);
}

/** One text chart row per curve: success at each point (`minutes:pct`). */
export function curvesTable(curves: Readonly<Record<string, readonly CurvePoint[]>>): string {
  return Object.entries(curves)
    .map(
      ([name, c]) =>
        `  ${name.padEnd(8)} ${c.map((p) => `${p.minutes.toFixed(1)}m ${(100 * p.success).toFixed(1)}%`).join(' · ')}`,
    )
    .join('\n');
}

/** An SVG line chart of held-out success against minutes, one line per curve (the benchmark's figure). */
export function curvesSvg(curves: Readonly<Record<string, readonly CurvePoint[]>>, targetSuccess: number): string {
  const W = 560;
  const H = 320;
  const pad = 40;
  const all = Object.values(curves).flat();
  const maxX = Math.max(1, ...all.map((p) => p.minutes));
  const x = (m: number): number => pad + ((W - 2 * pad) * m) / maxX;
  const y = (s: number): number => H - pad - (H - 2 * pad) * s;
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];
  const lines = Object.entries(curves).map(([name, c], i) => {
    const pts = c.map((p) => `${x(p.minutes).toFixed(1)},${y(p.success).toFixed(1)}`).join(' ');
    const color = colors[i % colors.length]!;
    return (
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts}"/>` +
      `<text x="${W - pad - 110}" y="${pad + 16 * i}" fill="${color}" font-size="12">${name}</text>`
    );
  });
  const target = `<line x1="${pad}" x2="${W - pad}" y1="${y(targetSuccess)}" y2="${y(targetSuccess)}" stroke="#888" stroke-dasharray="4"/>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="black"/>`,
    `<line x1="${pad}" y1="${pad}" x2="${pad}" y2="${H - pad}" stroke="black"/>`,
    `<text x="${W / 2 - 40}" y="${H - 8}" font-size="12">minutes</text>`,
    `<text x="4" y="${pad - 8}" font-size="12">held-out success (0–100 %)</text>`,
    target,
    ...lines,
    '</svg>',
  ].join('\n');
}
