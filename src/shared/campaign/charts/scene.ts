// The campaign charts as data: a scene of lines, marks, bars and labels in pixel coordinates, built
// by pure functions (charts.ts) from trials. The Campaigns panel draws a scene as React SVG
// elements (with hover titles); the report serialises the same scene to an SVG string — one chart
// code for both, since recharts draws nothing when rendered on the server.
export type Paint = { color: string; opacity?: number };

export type SceneItem =
  | {
      kind: 'line';
      points: [number, number][];
      stroke: string;
      width?: number;
      dash?: string;
      opacity?: number;
      title?: string;
    }
  | { kind: 'circle'; x: number; y: number; r: number; fill: string; stroke?: string; opacity?: number; title?: string }
  | { kind: 'cross'; x: number; y: number; r: number; stroke: string; title?: string }
  | { kind: 'rect'; x: number; y: number; w: number; h: number; fill: string; opacity?: number; title?: string }
  | {
      kind: 'text';
      x: number;
      y: number;
      text: string;
      anchor?: 'start' | 'middle' | 'end';
      size?: number;
      fill?: string;
      rotate?: number;
      weight?: 'bold';
    };

export interface Scene {
  width: number;
  height: number;
  title: string;
  items: SceneItem[];
  /** What the panel's tests count: plotted series or marks. */
  marks: number;
}

/** Theme colours: CSS variables of the workbench with fallbacks for a standalone page. */
export const COLORS = {
  fg: 'var(--fg, #1f2328)',
  dim: 'var(--fg-dim, #6e7781)',
  grid: 'var(--grid, #d0d7de)',
  accent: 'var(--accent, #2f6fde)',
  good: 'var(--ok, #1a7f37)',
  warn: 'var(--warn, #bf8700)',
  bad: 'var(--danger, #cf222e)',
} as const;

/** A colour for the i-th of n series (hue around the wheel, readable on light and dark). */
export function seriesColor(i: number, n: number): string {
  const hue = Math.round((i * 360) / Math.max(1, n) + 210) % 360;
  return `hsl(${hue} 65% 50%)`;
}

/** Maps a value in [0, 1] to a blue→orange ramp (parallel coordinates by objective). */
export function rampColor(t: number): string {
  const c = Math.min(1, Math.max(0, t));
  return `hsl(${Math.round(220 - c * 190)} 70% ${Math.round(45 + c * 5)}%)`;
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n = (x: number): string => (Math.round(x * 10) / 10).toString();

/** `;opacity:…` when the item sets one. */
const opacityOf = (it: { opacity?: number | undefined }): string =>
  it.opacity !== undefined ? `;opacity:${it.opacity}` : '';

function itemSvg(it: SceneItem): string {
  const title = 'title' in it && it.title ? `<title>${esc(it.title)}</title>` : '';
  switch (it.kind) {
    case 'line': {
      const dash = it.dash ? `;stroke-dasharray:${it.dash}` : '';
      const style = `fill:none;stroke:${it.stroke};stroke-width:${it.width ?? 1.5}${dash}${opacityOf(it)}`;
      const points = it.points.map(([x, y]) => `${n(x)},${n(y)}`).join(' ');
      return `<polyline points="${points}" style="${esc(style)}">${title}</polyline>`;
    }
    case 'circle': {
      const stroke = it.stroke ? `;stroke:${it.stroke};stroke-width:1.5` : '';
      const style = `fill:${it.fill}${stroke}${opacityOf(it)}`;
      return `<circle cx="${n(it.x)}" cy="${n(it.y)}" r="${n(it.r)}" style="${esc(style)}">${title}</circle>`;
    }
    case 'cross': {
      const [x0, x1, y0, y1] = [n(it.x - it.r), n(it.x + it.r), n(it.y - it.r), n(it.y + it.r)];
      const d = `M${x0} ${y0}L${x1} ${y1}M${x0} ${y1}L${x1} ${y0}`;
      return `<path d="${d}" style="${esc(`fill:none;stroke:${it.stroke};stroke-width:2`)}">${title}</path>`;
    }
    case 'rect': {
      const box = `x="${n(it.x)}" y="${n(it.y)}" width="${n(Math.max(0, it.w))}" height="${n(Math.max(0, it.h))}"`;
      return `<rect ${box} style="${esc(`fill:${it.fill}${opacityOf(it)}`)}">${title}</rect>`;
    }
    case 'text': {
      const transform = it.rotate ? ` transform="rotate(${it.rotate} ${n(it.x)} ${n(it.y)})"` : '';
      const weight = it.weight ? `;font-weight:${it.weight}` : '';
      const font = `font-size:${it.size ?? 11}px;font-family:system-ui,sans-serif${weight}`;
      const style = `fill:${it.fill ?? COLORS.dim};${font}`;
      const anchor = `text-anchor="${it.anchor ?? 'start'}"`;
      return `<text x="${n(it.x)}" y="${n(it.y)}" ${anchor}${transform} style="${esc(style)}">${esc(it.text)}</text>`;
    }
  }
}

/** The scene as a standalone SVG element (inline in the HTML report, a file beside the Markdown one). */
export function sceneToSvg(scene: Scene): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${scene.width} ${scene.height}"` +
      ` width="${scene.width}" height="${scene.height}" role="img" aria-label="${esc(scene.title)}">`,
    ...scene.items.map(itemSvg),
    '</svg>',
  ].join('\n');
}
