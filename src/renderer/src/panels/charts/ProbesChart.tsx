// Saved fork probes of the viewed run (docs/inner-loop.md): each probe's hit rate — continuations
// from its fixed prefix that contain its string ("does it still call the tool here?") — over weight
// versions; "Run now" probes the live worker's current weights.
import { memo, useEffect, useMemo, useState } from 'react';
import { Legend, Line, LineChart, ResponsiveContainer, Tooltip } from 'recharts';
import type { WorkbenchApi, WorkbenchResult } from '../../../../shared/workbench-api';
import { percent } from '../../format';
import { errorMessage } from '../../store/toasts';
import { ChartCard, Empty, GRID, MARGIN, PERCENT_AXIS, TOOLTIP, VERSION_AXIS } from './chart-parts';
import { probeRows } from './probe-series';

const COLOURS = ['var(--accent)', 'var(--ok)', 'var(--violet)', 'var(--warn)', 'var(--marker)', 'var(--danger)'];

type Probes = WorkbenchResult<'probes'>['probes'];

function useProbes(api: WorkbenchApi, runId: string | null, active: boolean, tick: number) {
  const [probes, setProbes] = useState<Probes>([]);
  const [note, setNote] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    if (!runId || !active) return;
    let current = true;
    api.probes({ runId }).then(
      (r) => current && setProbes(r.probes),
      (err: unknown) => current && setNote(errorMessage(err)),
    );
    return () => {
      current = false;
    };
  }, [api, runId, active, tick, reload]);
  return { probes, note, setNote, setReload };
}

export const ProbesChart = memo(function ProbesChart(props: {
  api: WorkbenchApi;
  runId: string | null;
  live: boolean;
  active: boolean;
  /** Changes when new weights may have been probed (the step count). */
  tick: number;
}) {
  const { api, runId, active } = props;
  const { probes, note, setNote, setReload } = useProbes(api, runId, active, props.tick);
  const rows = useMemo(() => probeRows(probes), [probes]);
  const runNow = (): void =>
    void api.runProbes({}).then(
      (r) => {
        setNote(`probed ${r.points.length} at the current weights`);
        setReload((n) => n + 1);
      },
      (err: unknown) => setNote(errorMessage(err)),
    );
  const extra = (
    <span className="muted">
      {note}{' '}
      {props.live && probes.length > 0 && (
        <button type="button" className="link" onClick={runNow}>
          Run now
        </button>
      )}
    </span>
  );
  return (
    <ChartCard
      title="Probes: hit rate per weight version"
      testId="chart-probes"
      points={rows.length}
      span={3}
      extra={extra}
    >
      {probes.length === 0 ? (
        <Empty text="No probes: save one from the inspector (Fork here → Save as probe)." />
      ) : (
        active && (
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={MARGIN}>
              {GRID}
              {VERSION_AXIS}
              {PERCENT_AXIS}
              <Tooltip
                {...TOOLTIP}
                labelFormatter={(v) => `weights v${String(v)}`}
                formatter={(v) => percent(Number(v))}
              />
              <Legend wrapperStyle={{ fontSize: 11 }} />
              {probes.map((p, i) => (
                <Line
                  key={p.id}
                  dataKey={`p${p.id}`}
                  name={`${p.name} (contains ${p.spec.contains})`}
                  stroke={COLOURS[i % COLOURS.length]}
                  strokeWidth={1.6}
                  dot={{ r: 2.5 }}
                  connectNulls
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        )
      )}
    </ChartCard>
  );
});
