// Pieces the charts share: the card around each chart (its test id, point and marker counts), the
// empty-state text, the code-version marker lines, axis, grid and tooltip styles, the step, version and
// rate axes, a header stat.
import type { ReactNode } from 'react';
import { CartesianGrid, ReferenceLine, XAxis, YAxis } from 'recharts';
import type { MarkerLine } from '../../charts/series';
import { percent } from '../../format';

export const AXIS = { stroke: 'var(--fg-dim)', fontSize: 11, tickLine: false } as const;
export const GRID = <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />;
export const TOOLTIP = {
  contentStyle: { background: 'var(--bg-2)', border: '1px solid var(--border)', fontSize: 12 },
  labelStyle: { color: 'var(--fg-dim)' },
  isAnimationActive: false,
} as const;
export const STEP_AXIS = (
  <XAxis
    dataKey="step"
    type="number"
    domain={['dataMin', 'dataMax']}
    allowDecimals={false}
    padding={{ left: 12, right: 12 }}
    {...AXIS}
  />
);
/** The x axis of the charts drawn per weight version. */
export const VERSION_AXIS = (
  <XAxis dataKey="weightVersion" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...AXIS} />
);
/** A y axis of rates, 0–100 %. */
export const PERCENT_AXIS = <YAxis {...AXIS} width={44} domain={[0, 1]} tickFormatter={(v: number) => percent(v)} />;
export const MARGIN = { top: 14, right: 16, bottom: 0, left: 0 };

export function ChartCard({
  title,
  testId,
  points,
  markers,
  extra,
  children,
  span,
}: {
  title: string;
  testId: string;
  points: number;
  markers?: number;
  extra?: ReactNode;
  children: ReactNode;
  span: 2 | 3 | 6;
}) {
  return (
    <div className={`card chart-card span-${span}`} data-testid={testId} data-points={points} data-markers={markers}>
      <div className="chart-head">
        <span className="chart-title">{title}</span>
        {extra}
      </div>
      <div className="chart-body">{children}</div>
    </div>
  );
}

export function Empty({ text }: { text: string }) {
  return <div className="chart-empty">{text}</div>;
}

export function markerRefs(lines: readonly MarkerLine[]) {
  return lines.map((m) => (
    <ReferenceLine
      key={`${m.step}-${m.codeVersion}`}
      x={m.step}
      stroke="var(--marker)"
      strokeDasharray="3 3"
      label={{ value: m.label, position: 'insideTopRight', fill: 'var(--marker)', fontSize: 10 }}
    />
  ));
}

export function Stat({ label, value }: { label: string; value: string }) {
  return (
    <span className="stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value mono">{value}</span>
    </span>
  );
}
