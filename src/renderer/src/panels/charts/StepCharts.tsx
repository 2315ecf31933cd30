// The per-step charts: reward (mean with a min–max band), success rate, timeline merging (tokens
// before/after, compression, samples per episode) and step time (rollout vs update). Each draws
// only while `active`; `emptyText` stands in until there are steps. Each is memoised: a recharts
// chart costs tens of milliseconds to render, and the panel above re-renders on every session event.
import { memo, useMemo } from 'react';
import {
  Area,
  Bar,
  BarChart,
  ComposedChart,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { CodeMarker, StepPoint } from '../../../../shared/workbench-api';
import { fmt, markerLines, mergeRows, rewardRows, stepTimeRows } from '../../charts/series';
import { percent } from '../../format';
import { AXIS, ChartCard, Empty, GRID, MARGIN, markerRefs, PERCENT_AXIS, STEP_AXIS, TOOLTIP } from './chart-parts';

export interface StepChartProps {
  steps: readonly StepPoint[];
  markers: readonly CodeMarker[];
  active: boolean;
  /** Shown instead of the chart while there are no steps (a string, so that memo compares it by value). */
  emptyText: string | null;
}

export const RewardChart = memo(function RewardChart({ steps, markers, active, emptyText }: StepChartProps) {
  const rows = useMemo(() => rewardRows(steps), [steps]);
  const lines = useMemo(() => markerLines(markers), [markers]);
  const changes = lines.length ? `${lines.length} code change${lines.length > 1 ? 's' : ''}` : '';
  return (
    <ChartCard
      title="Reward per step (mean, min–max)"
      testId="chart-reward"
      points={steps.length}
      markers={markers.length}
      span={6}
      extra={<span className="muted">{changes}</span>}
    >
      {emptyText !== null ? (
        <Empty text={emptyText} />
      ) : (
        active && (
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={rows} margin={MARGIN}>
              {GRID}
              {STEP_AXIS}
              <YAxis {...AXIS} width={44} tickFormatter={(v: number) => fmt(v, 2)} />
              <Tooltip
                {...TOOLTIP}
                formatter={(v) => (Array.isArray(v) ? v.map((x) => fmt(Number(x))).join(' – ') : fmt(Number(v)))}
              />
              <Area
                dataKey="band"
                name="min–max"
                stroke="none"
                fill="var(--accent)"
                fillOpacity={0.15}
                isAnimationActive={false}
              />
              <Line
                dataKey="mean"
                name="mean"
                stroke="var(--accent)"
                strokeWidth={1.6}
                dot={false}
                isAnimationActive={false}
              />
              {markerRefs(lines)}
            </ComposedChart>
          </ResponsiveContainer>
        )
      )}
    </ChartCard>
  );
});

export const SuccessChart = memo(function SuccessChart({ steps, markers, active, emptyText }: StepChartProps) {
  const rows = useMemo(() => rewardRows(steps), [steps]);
  const lines = useMemo(() => markerLines(markers), [markers]);
  return (
    <ChartCard
      title="Success rate per step"
      testId="chart-success"
      points={steps.length}
      markers={markers.length}
      span={2}
    >
      {emptyText !== null ? (
        <Empty text={emptyText} />
      ) : (
        active && (
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={MARGIN}>
              {GRID}
              {STEP_AXIS}
              {PERCENT_AXIS}
              <Tooltip {...TOOLTIP} formatter={(v) => percent(Number(v))} />
              <Line
                dataKey="success"
                name="success"
                stroke="var(--ok)"
                strokeWidth={1.6}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
              {markerRefs(lines)}
            </LineChart>
          </ResponsiveContainer>
        )
      )}
    </ChartCard>
  );
});

export const MergeChart = memo(function MergeChart({ steps, active, emptyText }: StepChartProps) {
  const rows = useMemo(() => mergeRows(steps), [steps]);
  const last = steps.at(-1);
  return (
    <ChartCard
      title="Timeline merging: tokens before vs after"
      testId="chart-merge"
      points={steps.length}
      span={3}
      extra={
        last ? (
          <span className="muted">
            ratio {fmt(last.compressionRatio, 2)}× · {fmt(last.samplesPerEpisode, 2)} samples/episode
          </span>
        ) : null
      }
    >
      {emptyText !== null ? (
        <Empty text={emptyText} />
      ) : (
        active && (
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={rows} margin={{ ...MARGIN, right: 8 }}>
              {GRID}
              {STEP_AXIS}
              <YAxis yAxisId="tok" {...AXIS} width={48} tickFormatter={(v: number) => fmt(v)} />
              <YAxis
                yAxisId="ratio"
                orientation="right"
                {...AXIS}
                width={36}
                tickFormatter={(v: number) => fmt(v, 2)}
              />
              <Tooltip {...TOOLTIP} formatter={(v) => fmt(Number(v))} />
              <Legend wrapperStyle={{ fontSize: 11 }} />
              <Line
                yAxisId="tok"
                dataKey="tokensBefore"
                name="tokens before"
                stroke="var(--warn)"
                dot={false}
                isAnimationActive={false}
              />
              <Line
                yAxisId="tok"
                dataKey="tokensAfter"
                name="tokens after"
                stroke="var(--accent)"
                dot={false}
                isAnimationActive={false}
              />
              <Line
                yAxisId="ratio"
                dataKey="ratio"
                name="compression ×"
                stroke="var(--violet)"
                strokeDasharray="4 2"
                dot={false}
                isAnimationActive={false}
              />
              <Line
                yAxisId="ratio"
                dataKey="samplesPerEpisode"
                name="samples/episode"
                stroke="var(--fg-dim)"
                strokeDasharray="1 3"
                dot={false}
                isAnimationActive={false}
              />
            </ComposedChart>
          </ResponsiveContainer>
        )
      )}
    </ChartCard>
  );
});

export const StepTimeChart = memo(function StepTimeChart({ steps, active, emptyText }: StepChartProps) {
  const rows = useMemo(() => stepTimeRows(steps), [steps]);
  return (
    <ChartCard title="Step time: rollout vs update (s)" testId="chart-steptime" points={steps.length} span={3}>
      {emptyText !== null ? (
        <Empty text={emptyText} />
      ) : (
        active && (
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={rows} margin={MARGIN}>
              {GRID}
              <XAxis dataKey="step" {...AXIS} minTickGap={16} />
              <YAxis {...AXIS} width={44} tickFormatter={(v: number) => fmt(v, 2)} />
              <Tooltip {...TOOLTIP} formatter={(v) => `${fmt(Number(v))} s`} />
              <Legend wrapperStyle={{ fontSize: 11 }} />
              <Bar dataKey="rollout" name="rollout" stackId="t" fill="var(--accent)" isAnimationActive={false} />
              <Bar dataKey="update" name="update" stackId="t" fill="var(--warn)" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        )
      )}
    </ChartCard>
  );
});
