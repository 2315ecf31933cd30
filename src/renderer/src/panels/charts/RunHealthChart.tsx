// The run-health view (issue #21): the signals that show an asynchronous run drifting before its reward
// does — staleness of the trained tokens against the bound K and the episodes dropped over it, and the
// behaviour-vs-trainer mismatch KL beside the KL to the reference (one card), and the clipped / corrected
// shares of tokens, generation and trainer busy shares, generation waiting for an update, and the
// weight-sync time (the other). Rows from charts/health.ts; recharts with animations off.
import { memo, useMemo } from 'react';
import { ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, YAxis } from 'recharts';
import type { StepPoint } from '../../../../shared/workbench-api';
import { healthRows, type HealthRow } from '../../charts/health';
import { fmt } from '../../charts/series';
import { AXIS, ChartCard, Empty, GRID, MARGIN, STEP_AXIS, TOOLTIP } from './chart-parts';

interface Series {
  key: keyof HealthRow;
  name: string;
  color: string;
  axis: 'left' | 'right';
  dashed?: boolean;
}

const DRIFT: Series[] = [
  { key: 'stalenessMean', name: 'staleness (mean)', color: 'var(--accent)', axis: 'left' },
  { key: 'stalenessMax', name: 'staleness (max)', color: 'var(--accent)', axis: 'left', dashed: true },
  { key: 'stalenessBound', name: 'bound K', color: 'var(--err, #c0504d)', axis: 'left', dashed: true },
  { key: 'droppedOverBound', name: 'dropped over K (episodes)', color: 'var(--err, #c0504d)', axis: 'left' },
  { key: 'mismatchKl', name: 'mismatch KL', color: 'var(--warn, #d08a2e)', axis: 'right' },
  { key: 'klToRef', name: 'KL to reference', color: 'var(--fg-dim)', axis: 'right', dashed: true },
  { key: 'distillKl', name: 'reverse KL to teacher', color: 'var(--ok, #3c9d5d)', axis: 'right', dashed: true },
  { key: 'distillTopKl', name: "KL to teacher's top-k", color: 'var(--ok, #3c9d5d)', axis: 'right' },
];

const LOAD: Series[] = [
  { key: 'genBusy', name: 'generation busy', color: 'var(--accent)', axis: 'left' },
  { key: 'trainerBusy', name: 'trainer busy', color: 'var(--ok, #3c9d5d)', axis: 'left' },
  { key: 'genIdleWait', name: 'gen waiting for update', color: 'var(--err, #c0504d)', axis: 'left' },
  { key: 'clipped', name: 'clipped', color: 'var(--fg-dim)', axis: 'left', dashed: true },
  { key: 'corrected', name: 'corrected', color: 'var(--warn, #d08a2e)', axis: 'left', dashed: true },
  { key: 'syncMs', name: 'sync ms', color: 'var(--marker)', axis: 'right' },
];

function HealthCard({
  title,
  testId,
  rows,
  series,
  leftPct,
  emptyText,
  active,
}: {
  title: string;
  testId: string;
  rows: HealthRow[];
  series: Series[];
  leftPct: boolean;
  emptyText: string | null;
  active: boolean;
}) {
  return (
    <ChartCard title={title} testId={testId} points={rows.length} span={3}>
      {emptyText !== null || rows.length === 0 ? (
        <Empty text={emptyText ?? 'No run-health figures from this worker yet.'} />
      ) : (
        active && (
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={rows} margin={MARGIN}>
              {GRID}
              {STEP_AXIS}
              <YAxis
                yAxisId="left"
                {...AXIS}
                width={40}
                tickFormatter={(v: number) => (leftPct ? `${Math.round(v * 100)}%` : fmt(v, 2))}
              />
              <YAxis
                yAxisId="right"
                orientation="right"
                {...AXIS}
                width={44}
                tickFormatter={(v: number) => fmt(v, 2)}
              />
              <Tooltip {...TOOLTIP} formatter={(v) => fmt(Number(v), 4)} />
              <Legend wrapperStyle={{ fontSize: 11 }} />
              {series.map((s) => (
                <Line
                  key={s.key}
                  yAxisId={s.axis}
                  dataKey={s.key}
                  name={s.name}
                  stroke={s.color}
                  strokeWidth={1.4}
                  {...(s.dashed ? { strokeDasharray: '4 3' } : {})}
                  dot={false}
                  connectNulls
                  isAnimationActive={false}
                />
              ))}
            </ComposedChart>
          </ResponsiveContainer>
        )
      )}
    </ChartCard>
  );
}

export const RunHealthCharts = memo(function RunHealthCharts({
  steps,
  active,
  emptyText,
}: {
  steps: readonly StepPoint[];
  active: boolean;
  emptyText: string | null;
}) {
  const rows = useMemo(() => healthRows(steps), [steps]);
  const common = { rows, emptyText, active };
  return (
    <>
      <HealthCard
        title="Run health: staleness and mismatch"
        testId="chart-health-drift"
        series={DRIFT}
        leftPct={false}
        {...common}
      />
      <HealthCard
        title="Run health: busy, clipped, sync"
        testId="chart-health-load"
        series={LOAD}
        leftPct
        {...common}
      />
    </>
  );
});
