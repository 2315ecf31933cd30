// Live charts of the viewed run: reward (mean with a min–max band, code-version markers), success,
// eval success per weight version, batch fill, merging, step time, prefix cache, run health. Rows come from the pure
// transforms in charts/series.ts; recharts draws them with animations off. The containers (and
// their data-points / data-markers) are always in the DOM; the charts inside render only while the
// panel is visible, so a hidden panel costs nothing.
import type { CodeMarker, EvalPoint, Session, StepPoint, WorkbenchApi } from '../../../../shared/workbench-api';
import { fmt } from '../../charts/series';
import { percent } from '../../format';
import { BatchFillCard } from './BatchFillCard';
import { Stat } from './chart-parts';
import { EvalChart } from './EvalChart';
import { PrefixCacheCard } from './PrefixCacheChart';
import { ProbesChart } from './ProbesChart';
import { RunHealthCharts } from './RunHealthChart';
import { MergeChart, RewardChart, StepTimeChart, SuccessChart } from './StepCharts';

export interface ChartsPanelProps {
  api: WorkbenchApi;
  active: boolean;
  runId: string | null;
  live: boolean;
  session: Session | null;
  steps: readonly StepPoint[];
  evals: readonly EvalPoint[];
  markers: readonly CodeMarker[];
  loaded: boolean;
}

function RunHeader({ runId, live, last }: { runId: string | null; live: boolean; last: StepPoint | undefined }) {
  return (
    <div className="panel-head">
      <h2>Charts</h2>
      <span className="muted">
        {runId ? (
          <>
            run <span className="mono">{runId}</span>{' '}
            {live ? <span className="pill pill-live">live</span> : <span className="pill">stored</span>}
          </>
        ) : (
          'no run'
        )}
      </span>
      {last ? (
        <span className="head-stats">
          <Stat label="reward" value={fmt(last.rewardMean)} />
          <Stat label="success" value={percent(last.successRate)} />
          <Stat label="compression" value={`${fmt(last.compressionRatio, 2)}×`} />
          <Stat label="loss" value={fmt(last.loss)} />
          {last.distillReverseKl !== undefined ? (
            <Stat label="reverse KL to teacher" value={fmt(last.distillReverseKl)} />
          ) : null}
          {last.distillTopKl !== undefined ? (
            <Stat label="KL to teacher's top-k" value={fmt(last.distillTopKl)} />
          ) : null}
          {last.distillKept !== undefined && last.distillKept < 1 ? (
            <Stat label="samples distilled" value={percent(last.distillKept)} />
          ) : null}
        </span>
      ) : null}
    </div>
  );
}

export function ChartsPanel({ api, active, runId, live, session, steps, evals, markers, loaded }: ChartsPanelProps) {
  const emptyText =
    steps.length === 0
      ? runId
        ? loaded || live
          ? 'Waiting for the first training step…'
          : 'Loading…'
        : 'Connect or open a run to see its charts.'
      : null;
  const step = { steps, markers, active, emptyText };
  return (
    <div className="charts">
      <RunHeader runId={runId} live={live} last={steps.at(-1)} />
      <div className="chart-grid">
        <RewardChart {...step} />
        <SuccessChart {...step} />
        <EvalChart evals={evals} active={active} />
        <BatchFillCard session={session} live={live} />
        <MergeChart {...step} />
        <StepTimeChart {...step} />
        <PrefixCacheCard steps={steps} active={active} emptyText={emptyText} />
        <RunHealthCharts steps={steps} active={active} emptyText={emptyText} />
        <ProbesChart api={api} runId={runId} live={live} active={active} tick={steps.length} />
      </div>
    </div>
  );
}
