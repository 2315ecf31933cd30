// One board figure charted by commit (oldest left): each commit's mean with ±2 SE whiskers, its
// predecessors' band as a shaded bar behind it, flagged commits in colour.
import type { BoardFigure } from '../../../../shared/regress';
import { cellTitle, fmtFigure } from './regress-matrix';

const W = 640;
const H = 180;
const PAD = { l: 56, r: 12, t: 10, b: 22 };

export function FigureChart({ figure }: { figure: BoardFigure }) {
  const rows = figure.rows;
  const values = rows.flatMap((r) => [r.mean - 2 * r.se, r.mean + 2 * r.se, ...(r.band ? [r.band.lo, r.band.hi] : [])]);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (!(hi > lo)) [lo, hi] = [lo - 1, hi + 1];
  const slot = (W - PAD.l - PAD.r) / Math.max(1, rows.length);
  const x = (i: number): number => PAD.l + slot * (i + 0.5);
  const y = (v: number): number => PAD.t + (H - PAD.t - PAD.b) * (1 - (v - lo) / (hi - lo));
  return (
    <figure className="rg-chart" data-testid="regress-chart" data-points={rows.length}>
      <figcaption>
        <span className="rg-bench">{figure.bench}</span> {figure.figure} by commit
      </figcaption>
      <svg width={W} height={H} role="img" aria-label={`${figure.bench} ${figure.figure} by commit`}>
        <text x={PAD.l - 4} y={y(hi) + 4} textAnchor="end">
          {fmtFigure(hi)}
        </text>
        <text x={PAD.l - 4} y={y(lo)} textAnchor="end">
          {fmtFigure(lo)}
        </text>
        {rows.map((r, i) => (
          <g key={r.commit} className={r.flag ? `rg-point ${r.flag}` : 'rg-point'}>
            <title>{`${r.commit.slice(0, 8)} ${r.subject}\n${fmtFigure(r.mean)}; ${cellTitle(r)}`}</title>
            {r.band && (
              <rect
                className="rg-band"
                x={x(i) - slot * 0.4}
                width={slot * 0.8}
                y={y(r.band.hi)}
                height={Math.max(1, y(r.band.lo) - y(r.band.hi))}
              />
            )}
            <line x1={x(i)} x2={x(i)} y1={y(r.mean + 2 * r.se)} y2={y(r.mean - 2 * r.se)} />
            <circle cx={x(i)} cy={y(r.mean)} r={3.5} />
            <text x={x(i)} y={H - 6} textAnchor="middle">
              {r.commit.slice(0, 7)}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}
