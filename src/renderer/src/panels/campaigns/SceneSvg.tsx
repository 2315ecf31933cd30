// Draws a campaign chart scene (src/shared/campaign/charts) as React SVG elements, with each mark's
// title shown on hover — the same scene the report writes as an SVG file.
import type { Scene, SceneItem } from '../../../../shared/campaign/charts/scene';

const pts = (p: [number, number][]): string => p.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');

function Item({ it }: { it: SceneItem }) {
  const title = 'title' in it && it.title ? <title>{it.title}</title> : null;
  switch (it.kind) {
    case 'line':
      return (
        <polyline
          points={pts(it.points)}
          style={{
            fill: 'none',
            stroke: it.stroke,
            strokeWidth: it.width ?? 1.5,
            strokeDasharray: it.dash,
            opacity: it.opacity,
          }}
        >
          {title}
        </polyline>
      );
    case 'circle':
      return (
        <circle
          cx={it.x}
          cy={it.y}
          r={it.r}
          style={{ fill: it.fill, stroke: it.stroke, strokeWidth: it.stroke ? 1.5 : 0, opacity: it.opacity }}
        >
          {title}
        </circle>
      );
    case 'cross':
      return (
        <path d={crossPath(it.x, it.y, it.r)} style={{ fill: 'none', stroke: it.stroke, strokeWidth: 2 }}>
          {title}
        </path>
      );
    case 'rect':
      return (
        <rect
          x={it.x}
          y={it.y}
          width={Math.max(0, it.w)}
          height={Math.max(0, it.h)}
          style={{ fill: it.fill, opacity: it.opacity }}
        >
          {title}
        </rect>
      );
    case 'text':
      return (
        <text
          x={it.x}
          y={it.y}
          textAnchor={it.anchor ?? 'start'}
          transform={it.rotate ? `rotate(${it.rotate} ${it.x} ${it.y})` : undefined}
          style={{ fill: it.fill ?? 'var(--fg-dim)', fontSize: it.size ?? 11, fontWeight: it.weight }}
        >
          {it.text}
        </text>
      );
  }
}

export function SceneSvg({ scene, testId }: { scene: Scene; testId: string }) {
  return (
    <svg
      viewBox={`0 0 ${scene.width} ${scene.height}`}
      width="100%"
      style={{ maxWidth: scene.width }}
      role="img"
      aria-label={scene.title}
      data-testid={testId}
      data-marks={scene.marks}
    >
      {scene.items.map((it, i) => (
        <Item key={i} it={it} />
      ))}
    </svg>
  );
}

/** An × marker: the two diagonals of the square of half-side `r` around (x, y). */
function crossPath(x: number, y: number, r: number): string {
  return `M${x - r} ${y - r}L${x + r} ${y + r}M${x - r} ${y + r}L${x + r} ${y - r}`;
}
