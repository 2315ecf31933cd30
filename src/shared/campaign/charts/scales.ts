// Scales, ticks, axes and number formats for the campaign charts (pure).
import { COLORS, type SceneItem } from './scene';

export interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export const frame = (width: number, height: number, left = 52, bottom = 38, top = 26, right = 14): Frame => ({
  width,
  height,
  left,
  right,
  top,
  bottom,
});
export const plotX = (f: Frame): [number, number] => [f.left, f.width - f.right];
export const plotY = (f: Frame): [number, number] => [f.height - f.bottom, f.top];

export interface Scale {
  (v: number): number;
  ticks: number[];
  format: (v: number) => string;
}

/** Short number text: 3 significant digits, exponent form for very small or large values. */
export function fmtNum(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e6) {
    const [m, e] = v.toExponential(1).split('e');
    return `${m!.replace(/\.0$/, '')}e${Number(e)}`;
  }
  return String(Number(v.toPrecision(3)));
}

/** About `count` round tick values spanning [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  return out;
}

export function linearScale(domain: [number, number], range: [number, number], count = 5): Scale {
  let [d0, d1] = domain;
  if (d0 === d1) [d0, d1] = [d0 - 0.5, d1 + 0.5];
  const f = ((v: number) => range[0] + ((v - d0) / (d1 - d0)) * (range[1] - range[0])) as Scale;
  f.ticks = niceTicks(d0, d1, count);
  f.format = fmtNum;
  return f;
}

export function logScale(domain: [number, number], range: [number, number]): Scale {
  const l0 = Math.log10(Math.max(domain[0], Number.MIN_VALUE));
  let l1 = Math.log10(Math.max(domain[1], Number.MIN_VALUE));
  if (l1 === l0) l1 = l0 + 1;
  const f = ((v: number) =>
    range[0] + ((Math.log10(Math.max(v, Number.MIN_VALUE)) - l0) / (l1 - l0)) * (range[1] - range[0])) as Scale;
  const ticks: number[] = [];
  for (let e = Math.ceil(l0 - 1e-9); e <= Math.floor(l1 + 1e-9); e++) ticks.push(Number((10 ** e).toPrecision(12)));
  if (ticks.length < 2) ticks.splice(0, ticks.length, domain[0], domain[1]);
  f.ticks = ticks;
  f.format = fmtNum;
  return f;
}

/** Categorical values at evenly spaced positions (a band scale). */
export function bandScale(
  values: readonly unknown[],
  range: [number, number],
): { at: (v: unknown) => number; ticks: { value: unknown; x: number }[] } {
  const step = (range[1] - range[0]) / Math.max(1, values.length);
  const pos = (i: number): number => range[0] + step * (i + 0.5);
  return {
    at: (v) => {
      const i = values.findIndex((x) => x === v);
      return i < 0 ? Number.NaN : pos(i);
    },
    ticks: values.map((value, i) => ({ value, x: pos(i) })),
  };
}

/** Grid lines, tick labels and axis titles of a plot. */
export function axes(
  f: Frame,
  x: { ticks: { x: number; label: string }[]; title: string },
  y: { ticks: { y: number; label: string }[]; title: string },
): SceneItem[] {
  const [x0, x1] = plotX(f);
  const [y0, y1] = plotY(f);
  const items: SceneItem[] = [];
  for (const t of y.ticks) {
    items.push({
      kind: 'line',
      points: [
        [x0, t.y],
        [x1, t.y],
      ],
      stroke: COLORS.grid,
      width: 1,
      dash: '2 4',
    });
    items.push({ kind: 'text', x: x0 - 6, y: t.y + 4, text: t.label, anchor: 'end', size: 10 });
  }
  for (const t of x.ticks) items.push({ kind: 'text', x: t.x, y: y0 + 14, text: t.label, anchor: 'middle', size: 10 });
  items.push({
    kind: 'line',
    points: [
      [x0, y0],
      [x1, y0],
    ],
    stroke: COLORS.dim,
    width: 1,
  });
  items.push({
    kind: 'line',
    points: [
      [x0, y0],
      [x0, y1],
    ],
    stroke: COLORS.dim,
    width: 1,
  });
  items.push({
    kind: 'text',
    x: (x0 + x1) / 2,
    y: f.height - 6,
    text: x.title,
    anchor: 'middle',
    size: 11,
    fill: COLORS.fg,
  });
  items.push({
    kind: 'text',
    x: 12,
    y: (y0 + y1) / 2,
    text: y.title,
    anchor: 'middle',
    size: 11,
    fill: COLORS.fg,
    rotate: -90,
  });
  return items;
}
