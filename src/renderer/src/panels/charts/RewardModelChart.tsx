// The reward model's score against the verifiable reward, where episodes reported both (metrics
// rm_score and verifiable_reward at `end`): their means over bins of consecutive episodes on two axes,
// and how well the score separates verifiably good episodes from bad ones (ROC AUC, agreement).
import { useEffect, useMemo, useState } from 'react';
import { CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RewardPoint } from '../../../../shared/rewards-api';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { fmt } from '../../charts/series';
import { binSize, rewardBins, separation } from '../../charts/reward-series';
import { percent } from '../../format';

const AXIS = { stroke: 'var(--fg-dim)', fontSize: 11, tickLine: false } as const;

export function RewardModelChart({
  api,
  runId,
  active,
  refreshKey,
}: {
  api: WorkbenchApi;
  runId: string;
  active: boolean;
  refreshKey: string | number;
}) {
  const points = useRewardPoints(api, runId, active, refreshKey);
  const rows = useMemo(() => rewardBins(points, binSize(points.length)), [points]);
  const sep = useMemo(() => separation(points), [points]);

  return (
    <div className="card chart-card span-6" data-testid="chart-rm" data-points={points.length}>
      <div className="chart-head">
        <span className="chart-title">Reward model score vs verifiable reward</span>
        <span className="muted">
          {points.length} episodes · AUC {sep.auc === null ? '—' : sep.auc.toFixed(3)} · agreement{' '}
          {percent(sep.agreement)} ({sep.good} good / {sep.bad} bad)
        </span>
      </div>
      <div className="chart-body">
        {points.length === 0 ? (
          <div className="chart-empty">
            No episode reported both rm_score and verifiable_reward yet (deploy a reward model into reward code that
            reports them, e.g. calculator-rm).
          </div>
        ) : (
          active && <RewardBinsChart rows={rows} />
        )}
      </div>
    </div>
  );
}

/** The run's episodes with both scores, fetched while the chart is shown and again on each refresh. */
function useRewardPoints(api: WorkbenchApi, runId: string, active: boolean, refreshKey: string | number) {
  const [points, setPoints] = useState<RewardPoint[]>([]);
  useEffect(() => {
    if (!active) return;
    let live = true;
    api.rewardComparison({ runId, limit: 5000 }).then(
      (r) => live && setPoints(r.points),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, runId, active, refreshKey]);
  return points;
}

function RewardBinsChart({ rows }: { rows: ReturnType<typeof rewardBins> }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart data={rows} margin={{ top: 14, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
        <XAxis dataKey="episode" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...AXIS} />
        <YAxis yAxisId="rm" {...AXIS} width={44} tickFormatter={(v: number) => fmt(v, 2)} />
        <YAxis
          yAxisId="v"
          orientation="right"
          domain={[0, 1]}
          {...AXIS}
          width={36}
          tickFormatter={(v: number) => fmt(v, 2)}
        />
        <Tooltip
          contentStyle={{ background: 'var(--bg-2)', border: '1px solid var(--border)', fontSize: 12 }}
          isAnimationActive={false}
          formatter={(v) => fmt(Number(v))}
          labelFormatter={(v) => `up to episode ${String(v)}`}
        />
        <Legend wrapperStyle={{ fontSize: 11 }} />
        <Line
          yAxisId="rm"
          dataKey="rmScore"
          name="reward-model score (mean)"
          stroke="var(--violet)"
          dot={false}
          isAnimationActive={false}
        />
        <Line
          yAxisId="v"
          dataKey="verifiable"
          name="verifiable reward (mean)"
          stroke="var(--ok)"
          dot={false}
          isAnimationActive={false}
        />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
