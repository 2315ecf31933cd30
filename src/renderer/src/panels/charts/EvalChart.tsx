// Eval success per weight version (consecutive versions pooled until a point stands for enough episodes).
import { memo, useMemo } from 'react';
import { Line, LineChart, ResponsiveContainer, Tooltip } from 'recharts';
import type { EvalPoint } from '../../../../shared/workbench-api';
import { evalRows } from '../../charts/series';
import { percent } from '../../format';
import { ChartCard, Empty, GRID, MARGIN, PERCENT_AXIS, TOOLTIP, VERSION_AXIS } from './chart-parts';

export const EvalChart = memo(function EvalChart({ evals, active }: { evals: readonly EvalPoint[]; active: boolean }) {
  const rows = useMemo(() => evalRows(evals), [evals]);
  return (
    <ChartCard title="Eval success per weight version" testId="chart-eval" points={evals.length} span={2}>
      {evals.length === 0 ? (
        <Empty text="No evaluation yet." />
      ) : (
        active && (
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={MARGIN}>
              {GRID}
              {VERSION_AXIS}
              {PERCENT_AXIS}
              <Tooltip
                {...TOOLTIP}
                labelFormatter={(v) => {
                  const episodes = rows.find((r) => r.weightVersion === Number(v))?.episodes ?? '?';
                  return `up to weights v${String(v)} · ${episodes} episodes`;
                }}
                formatter={(v) => percent(Number(v))}
              />
              <Line
                dataKey="success"
                name="eval success"
                stroke="var(--ok)"
                strokeWidth={1.6}
                dot={{ r: 2 }}
                connectNulls
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        )
      )}
    </ChartCard>
  );
});
