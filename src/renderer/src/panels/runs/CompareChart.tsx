// The Runs panel's comparison: the reward and success curves of the two ticked runs on one chart
// (reward on the left axis, success rate on the right).
import { useEffect, useMemo, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RunRow, StepPoint, WorkbenchApi } from '../../../../shared/workbench-api';
import { compareRows, fmt } from '../../charts/series';
import { dateTime, percent } from '../../format';
import { errorMessage } from '../../store/toasts';

const AXIS = { stroke: 'var(--fg-dim)', fontSize: 11, tickLine: false } as const;

export function CompareChart({
  api,
  active,
  picked,
  runs,
}: {
  api: WorkbenchApi;
  active: boolean;
  picked: readonly string[];
  runs: readonly RunRow[];
}) {
  const [a, b] = picked;
  const { series, error } = useCompareSeries(api, a, b);
  const rows = useMemo(() => (series ? compareRows(series.a, series.b) : []), [series]);
  const describe = (id: string | undefined): string => {
    const r = runs.find((x) => x.runId === id);
    return r ? `${r.name} · ${dateTime(r.createdAt)}` : (id ?? '');
  };
  return (
    <div
      className="card chart-card compare"
      data-testid="chart-compare"
      data-points={rows.length}
      data-runs={picked.length}
    >
      <div className="chart-head">
        <span className="chart-title">Compare</span>
        {a && b ? (
          <span className="muted">
            <span className="swatch swatch-a" /> A: {describe(a)} <span className="swatch swatch-b" /> B: {describe(b)}
          </span>
        ) : (
          <span className="muted">tick two runs above</span>
        )}
      </div>
      <div className="chart-body">
        {error ? (
          <div className="chart-empty" role="alert">
            {error}
          </div>
        ) : !a || !b ? (
          <div className="chart-empty">Select two runs to compare their reward and success curves.</div>
        ) : !series ? (
          <div className="chart-empty">Loading…</div>
        ) : (
          active && <CompareLines rows={rows} />
        )}
      </div>
    </div>
  );
}

/** The step curves of runs `a` and `b` (null until both are loaded). */
function useCompareSeries(api: WorkbenchApi, a: string | undefined, b: string | undefined) {
  const [series, setSeries] = useState<{ a: StepPoint[]; b: StepPoint[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setSeries(null);
    setError(null);
    if (!a || !b) return;
    let live = true;
    Promise.all([api.metrics({ runId: a }), api.metrics({ runId: b })]).then(
      ([ma, mb]) => live && setSeries({ a: ma.steps, b: mb.steps }),
      (err: unknown) => live && setError(`Could not load the runs to compare: ${errorMessage(err)}`),
    );
    return () => {
      live = false;
    };
  }, [api, a, b]);
  return { series, error };
}

function CompareLines({ rows }: { rows: ReturnType<typeof compareRows> }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={rows} margin={{ top: 14, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
        <XAxis dataKey="step" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...AXIS} />
        <YAxis yAxisId="r" {...AXIS} width={44} tickFormatter={(v: number) => fmt(v, 2)} />
        <YAxis
          yAxisId="s"
          orientation="right"
          domain={[0, 1]}
          {...AXIS}
          width={40}
          tickFormatter={(v: number) => percent(v)}
        />
        <Tooltip
          contentStyle={{ background: 'var(--bg-2)', border: '1px solid var(--border)', fontSize: 12 }}
          isAnimationActive={false}
          formatter={(v) => fmt(Number(v))}
        />
        <Legend wrapperStyle={{ fontSize: 11 }} />
        <Line
          yAxisId="r"
          dataKey="aReward"
          name="A reward"
          stroke="var(--accent)"
          dot={false}
          connectNulls
          isAnimationActive={false}
        />
        <Line
          yAxisId="r"
          dataKey="bReward"
          name="B reward"
          stroke="var(--warn)"
          dot={false}
          connectNulls
          isAnimationActive={false}
        />
        <Line
          yAxisId="s"
          dataKey="aSuccess"
          name="A success"
          stroke="var(--accent)"
          strokeDasharray="4 3"
          dot={false}
          connectNulls
          isAnimationActive={false}
        />
        <Line
          yAxisId="s"
          dataKey="bSuccess"
          name="B success"
          stroke="var(--warn)"
          strokeDasharray="4 3"
          dot={false}
          connectNulls
          isAnimationActive={false}
        />
      </LineChart>
    </ResponsiveContainer>
  );
}
