// The engine's prefix KV cache per step (the inference-side twin of the timeline-merging chart):
// prompt tokens the engine computed vs took from its cache over the step's rollouts, and the hit
// rate. Rows from charts/serving.ts; drawn by recharts with animations off.
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { memo, useMemo } from 'react';
import type { StepPoint } from '../../../../shared/workbench-api';
import { servingRows, type ServingRow } from '../../charts/serving';
import { fmt } from '../../charts/series';
import { percent } from '../../format';
import { ChartCard, Empty } from './chart-parts';

const AXIS = { stroke: 'var(--fg-dim)', fontSize: 11, tickLine: false } as const;
const TOOLTIP = {
  contentStyle: { background: 'var(--bg-2)', border: '1px solid var(--border)', fontSize: 12 },
  labelStyle: { color: 'var(--fg-dim)' },
  isAnimationActive: false,
} as const;

export function PrefixCacheChart({ rows }: { rows: ServingRow[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart data={rows} margin={{ top: 14, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
        <XAxis
          dataKey="step"
          type="number"
          domain={['dataMin', 'dataMax']}
          allowDecimals={false}
          padding={{ left: 12, right: 12 }}
          {...AXIS}
        />
        <YAxis yAxisId="tok" {...AXIS} width={48} tickFormatter={(v: number) => fmt(v)} />
        <YAxis
          yAxisId="rate"
          orientation="right"
          domain={[0, 1]}
          {...AXIS}
          width={36}
          tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
        />
        <Tooltip
          {...TOOLTIP}
          formatter={(v, name) => (name === 'hit rate' ? `${(Number(v) * 100).toFixed(1)}%` : fmt(Number(v)))}
        />
        <Legend wrapperStyle={{ fontSize: 11 }} />
        <Area
          yAxisId="tok"
          dataKey="reusedTokens"
          name="reused (cache)"
          stackId="p"
          stroke="var(--accent)"
          fill="var(--accent)"
          fillOpacity={0.35}
          isAnimationActive={false}
        />
        <Area
          yAxisId="tok"
          dataKey="prefilledTokens"
          name="computed"
          stackId="p"
          stroke="var(--warn)"
          fill="var(--warn)"
          fillOpacity={0.35}
          isAnimationActive={false}
        />
        <Line
          yAxisId="rate"
          dataKey="hitRate"
          name="hit rate"
          stroke="var(--violet)"
          strokeDasharray="4 2"
          dot={false}
          isAnimationActive={false}
        />
      </ComposedChart>
    </ResponsiveContainer>
  );
}

/** The prefix-cache card of the charts grid (empty until a step reports serving figures). */
export const PrefixCacheCard = memo(function PrefixCacheCard({
  steps,
  active,
  emptyText,
}: {
  steps: readonly StepPoint[];
  active: boolean;
  emptyText: string | null;
}) {
  const rows = useMemo(() => servingRows(steps), [steps]);
  const last = rows.at(-1);
  return (
    <ChartCard
      title="Prefix KV cache: prompt tokens computed vs reused"
      testId="chart-prefix-cache"
      points={rows.length}
      span={3}
      extra={
        last ? (
          <span className="muted">
            hit rate {percent(last.hitRate)} · batch {fmt(last.meanBatch, 1)}
          </span>
        ) : null
      }
    >
      {emptyText !== null ? (
        <Empty text={emptyText} />
      ) : rows.length === 0 ? (
        <Empty text="This worker reports no prefix-cache figures (a worker older than the prefix cache)." />
      ) : (
        active && <PrefixCacheChart rows={rows} />
      )}
    </ChartCard>
  );
});
