// Live charts of the viewed run: reward (mean with a min–max band, code-version markers), success,
// eval success per weight version, batch fill, merging, step time. Rows come from the pure
// transforms in charts/series.ts; recharts draws them with animations off. The containers (and
// their data-points / data-markers) are always in the DOM; the charts inside render only while the
// panel is visible, so a hidden panel costs nothing.
import { useMemo, type ReactNode } from 'react';
import { Area, Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { CodeMarker, EvalPoint, Session, StepPoint } from '../../../../shared/workbench-api';
import { batchFill, evalRows, fmt, markerLines, mergeRows, rewardRows, stepTimeRows, type MarkerLine } from '../../charts/series';
import { servingRows } from '../../charts/serving';
import { percent } from '../../format';
import { PrefixCacheChart } from './PrefixCacheChart';

export interface ChartsPanelProps {
  active: boolean;
  runId: string | null;
  live: boolean;
  session: Session | null;
  steps: readonly StepPoint[];
  evals: readonly EvalPoint[];
  markers: readonly CodeMarker[];
  loaded: boolean;
}

const AXIS = { stroke: 'var(--fg-dim)', fontSize: 11, tickLine: false } as const;
const GRID = <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />;
const TOOLTIP = { contentStyle: { background: 'var(--bg-2)', border: '1px solid var(--border)', fontSize: 12 }, labelStyle: { color: 'var(--fg-dim)' }, isAnimationActive: false } as const;
const stepAxis = <XAxis dataKey="step" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} padding={{ left: 12, right: 12 }} {...AXIS} />;

function ChartCard({ title, testId, points, markers, extra, children, span }: { title: string; testId: string; points: number; markers?: number; extra?: ReactNode; children: ReactNode; span: 2 | 3 | 6 }) {
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

function Empty({ text }: { text: string }) {
  return <div className="chart-empty">{text}</div>;
}

function markerRefs(lines: readonly MarkerLine[]) {
  return lines.map((m) => (
    <ReferenceLine key={`${m.step}-${m.codeVersion}`} x={m.step} stroke="var(--marker)" strokeDasharray="3 3" label={{ value: m.label, position: 'insideTopRight', fill: 'var(--marker)', fontSize: 10 }} />
  ));
}

export function ChartsPanel({ active, runId, live, session, steps, evals, markers, loaded }: ChartsPanelProps) {
  const reward = useMemo(() => rewardRows(steps), [steps]);
  const evalData = useMemo(() => evalRows(evals), [evals]);
  const merge = useMemo(() => mergeRows(steps), [steps]);
  const serving = useMemo(() => servingRows(steps), [steps]);
  const time = useMemo(() => stepTimeRows(steps), [steps]);
  const lines = useMemo(() => markerLines(markers), [markers]);
  const fill = batchFill(live ? (session?.progress ?? null) : null);
  const last = steps.at(-1);
  const noSteps = steps.length === 0 ? <Empty text={runId ? (loaded || live ? 'Waiting for the first training step…' : 'Loading…') : 'Connect or open a run to see its charts.'} /> : null;

  return (
    <div className="charts">
      <div className="panel-head">
        <h2>Charts</h2>
        <span className="muted">
          {runId ? (
            <>
              run <span className="mono">{runId}</span> {live ? <span className="pill pill-live">live</span> : <span className="pill">stored</span>}
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
          </span>
        ) : null}
      </div>
      <div className="chart-grid">
        <ChartCard title="Reward per step (mean, min–max)" testId="chart-reward" points={steps.length} markers={markers.length} span={6} extra={<span className="muted">{lines.length ? `${lines.length} code change${lines.length > 1 ? 's' : ''}` : ''}</span>}>
          {noSteps ??
            (active && (
              <ResponsiveContainer width="100%" height="100%">
                <ComposedChart data={reward} margin={{ top: 14, right: 16, bottom: 0, left: 0 }}>
                  {GRID}
                  {stepAxis}
                  <YAxis {...AXIS} width={44} tickFormatter={(v: number) => fmt(v, 2)} />
                  <Tooltip {...TOOLTIP} formatter={(v) => (Array.isArray(v) ? v.map((x) => fmt(Number(x))).join(' – ') : fmt(Number(v)))} />
                  <Area dataKey="band" name="min–max" stroke="none" fill="var(--accent)" fillOpacity={0.15} isAnimationActive={false} />
                  <Line dataKey="mean" name="mean" stroke="var(--accent)" strokeWidth={1.6} dot={false} isAnimationActive={false} />
                  {markerRefs(lines)}
                </ComposedChart>
              </ResponsiveContainer>
            ))}
        </ChartCard>

        <ChartCard title="Success rate per step" testId="chart-success" points={steps.length} markers={markers.length} span={2}>
          {noSteps ??
            (active && (
              <ResponsiveContainer width="100%" height="100%">
                <LineChart data={reward} margin={{ top: 14, right: 16, bottom: 0, left: 0 }}>
                  {GRID}
                  {stepAxis}
                  <YAxis {...AXIS} width={44} domain={[0, 1]} tickFormatter={(v: number) => percent(v)} />
                  <Tooltip {...TOOLTIP} formatter={(v) => percent(Number(v))} />
                  <Line dataKey="success" name="success" stroke="var(--ok)" strokeWidth={1.6} dot={false} connectNulls isAnimationActive={false} />
                  {markerRefs(lines)}
                </LineChart>
              </ResponsiveContainer>
            ))}
        </ChartCard>

        <ChartCard title="Eval success per weight version" testId="chart-eval" points={evals.length} span={2}>
          {evals.length === 0 ? (
            <Empty text="No evaluation yet." />
          ) : (
            active && (
              <ResponsiveContainer width="100%" height="100%">
                <LineChart data={evalData} margin={{ top: 14, right: 16, bottom: 0, left: 0 }}>
                  {GRID}
                  <XAxis dataKey="weightVersion" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...AXIS} />
                  <YAxis {...AXIS} width={44} domain={[0, 1]} tickFormatter={(v: number) => percent(v)} />
                  <Tooltip
                    {...TOOLTIP}
                    labelFormatter={(v) => `up to weights v${String(v)} · ${evalData.find((r) => r.weightVersion === Number(v))?.episodes ?? '?'} episodes`}
                    formatter={(v) => percent(Number(v))}
                  />
                  <Line dataKey="success" name="eval success" stroke="var(--ok)" strokeWidth={1.6} dot={{ r: 2 }} connectNulls isAnimationActive={false} />
                </LineChart>
              </ResponsiveContainer>
            )
          )}
        </ChartCard>

        <ChartCard title="Batch fill" testId="chart-batch" points={fill ? 1 : 0} span={2}>
          {fill && session?.progress ? (
            <div className="batch-fill">
              <div className="batch-numbers">
                <span className="big mono">{session.progress.current}</span>
                <span className="muted">
                  / {session.progress.target} {session.progress.unit}
                </span>
                <span className="pill">{session.progress.strategy}</span>
                {fill.ready ? <span className="pill pill-live">ready — updating</span> : null}
              </div>
              <div className={`meter big${fill.ready ? ' ready' : ''}`}>
                <span className="meter-fill" style={{ width: `${fill.fraction * 100}%` }} />
              </div>
              <div className="muted">{fill.detail}</div>
              <div className="batch-meta">
                <span>
                  pool <span className="mono">{session.poolEpisodes}</span> episodes
                </span>
                <span>
                  state <span className="mono">{session.state}</span>
                </span>
              </div>
            </div>
          ) : (
            <Empty text={live ? 'Waiting for batch progress…' : 'Batch fill is shown for the live run.'} />
          )}
        </ChartCard>

        <ChartCard title="Timeline merging: tokens before vs after" testId="chart-merge" points={steps.length} span={3} extra={last ? <span className="muted">ratio {fmt(last.compressionRatio, 2)}× · {fmt(last.samplesPerEpisode, 2)} samples/episode</span> : null}>
          {noSteps ??
            (active && (
              <ResponsiveContainer width="100%" height="100%">
                <ComposedChart data={merge} margin={{ top: 14, right: 8, bottom: 0, left: 0 }}>
                  {GRID}
                  {stepAxis}
                  <YAxis yAxisId="tok" {...AXIS} width={48} tickFormatter={(v: number) => fmt(v)} />
                  <YAxis yAxisId="ratio" orientation="right" {...AXIS} width={36} tickFormatter={(v: number) => fmt(v, 2)} />
                  <Tooltip {...TOOLTIP} formatter={(v) => fmt(Number(v))} />
                  <Legend wrapperStyle={{ fontSize: 11 }} />
                  <Line yAxisId="tok" dataKey="tokensBefore" name="tokens before" stroke="var(--warn)" dot={false} isAnimationActive={false} />
                  <Line yAxisId="tok" dataKey="tokensAfter" name="tokens after" stroke="var(--accent)" dot={false} isAnimationActive={false} />
                  <Line yAxisId="ratio" dataKey="ratio" name="compression ×" stroke="var(--violet)" strokeDasharray="4 2" dot={false} isAnimationActive={false} />
                  <Line yAxisId="ratio" dataKey="samplesPerEpisode" name="samples/episode" stroke="var(--fg-dim)" strokeDasharray="1 3" dot={false} isAnimationActive={false} />
                </ComposedChart>
              </ResponsiveContainer>
            ))}
        </ChartCard>

        <ChartCard title="Prefix KV cache: prompt tokens computed vs reused" testId="chart-prefix-cache" points={serving.length} span={3} extra={serving.length > 0 ? <span className="muted">hit rate {percent(serving.at(-1)!.hitRate)} · batch {fmt(serving.at(-1)!.meanBatch, 1)}</span> : null}>
          {noSteps ?? (serving.length === 0 ? <Empty text="This worker reports no prefix-cache figures (legacy serving or an older worker)." /> : active && <PrefixCacheChart rows={serving} />)}
        </ChartCard>

        <ChartCard title="Step time: rollout vs update (s)" testId="chart-steptime" points={steps.length} span={3}>
          {noSteps ??
            (active && (
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={time} margin={{ top: 14, right: 16, bottom: 0, left: 0 }}>
                  {GRID}
                  <XAxis dataKey="step" {...AXIS} minTickGap={16} />
                  <YAxis {...AXIS} width={44} tickFormatter={(v: number) => fmt(v, 2)} />
                  <Tooltip {...TOOLTIP} formatter={(v) => `${fmt(Number(v))} s`} />
                  <Legend wrapperStyle={{ fontSize: 11 }} />
                  <Bar dataKey="rollout" name="rollout" stackId="t" fill="var(--accent)" isAnimationActive={false} />
                  <Bar dataKey="update" name="update" stackId="t" fill="var(--warn)" isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            ))}
        </ChartCard>
      </div>
    </div>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <span className="stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value mono">{value}</span>
    </span>
  );
}
