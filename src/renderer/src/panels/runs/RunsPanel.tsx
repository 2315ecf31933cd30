// Runs: every run stored in SQLite (virtualised, fast with 100,000 rows). "Open" makes a run the
// viewed one (charts and inspector then show it); "Export" writes its curves and episodes as CSV
// and JSONL and a TensorBoard event file; ticking two runs compares their reward and success
// curves on one chart.
import { useEffect, useMemo, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RunRow, StepPoint, WorkbenchApi } from '../../../../shared/workbench-api';
import { compareRows, fmt } from '../../charts/series';
import { VirtualRows } from '../../components/VirtualRows';
import { dateTime, percent } from '../../format';
import { errorMessage } from '../../store/toasts';
import { toggleCompare } from './compare-selection';

export interface RunsPanelProps {
  api: WorkbenchApi;
  active: boolean;
  online: boolean;
  /** The viewed run. */
  runId: string | null;
  /** Bumps when the list may have changed (a session started or ended, a step finished). */
  refreshKey: string;
  onOpen: (runId: string) => void;
}

const COLUMNS = '28px minmax(140px, 1.4fr) 64px minmax(90px, 1fr) minmax(100px, 1fr) 130px 60px 80px 80px 80px 140px';
const AXIS = { stroke: 'var(--fg-dim)', fontSize: 11, tickLine: false } as const;

/** The stored runs, newest first, reloaded when `refreshKey` changes or on request (while the panel is shown). */
function useRuns(api: WorkbenchApi, active: boolean, online: boolean, refreshKey: string) {
  const [runs, setRuns] = useState<RunRow[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    if (!active || !online) return;
    let live = true;
    setLoading(true);
    api.runs({}).then(
      (r) => {
        if (!live) return;
        setRuns([...r.runs].sort((a, b) => b.createdAt - a.createdAt));
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!live) return;
        setError(`Could not list runs: ${errorMessage(err)}`);
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [api, active, online, refreshKey, reload]);
  return { runs, error, loading, refresh: () => setReload((n) => n + 1) };
}

/** Exporting a run (one at a time): which is in progress, where the last one went, the last failure. */
function useExport(api: WorkbenchApi) {
  const [exporting, setExporting] = useState<string | null>(null);
  const [exported, setExported] = useState<{ runId: string; dir: string; files: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const start = (id: string): void => {
    setExporting(id);
    api.exportRun({ runId: id }).then(
      (r) => {
        setExported({ runId: id, dir: r.dir, files: r.files.length });
        setError(null);
        setExporting(null);
      },
      (err: unknown) => {
        setError(`Could not export the run: ${errorMessage(err)}`);
        setExporting(null);
      },
    );
  };
  return { exporting, exported, error, start };
}

const RUNS_HEADER = (
  <>
    <span />
    <span>Name</span>
    <span>Mode</span>
    <span>Model</span>
    <span>Example</span>
    <span>Created</span>
    <span className="num">Steps</span>
    <span className="num">Episodes</span>
    <span className="num">Reward</span>
    <span className="num">Eval succ.</span>
    <span />
  </>
);

interface RunRowProps {
  run: RunRow;
  viewed: boolean;
  picked: boolean;
  /** null: no export running; else whether it is this run's. */
  exporting: boolean | null;
  onPick: () => void;
  onOpen: () => void;
  onExport: () => void;
}

function RunRowView({ run: r, viewed, picked, exporting, onPick, onOpen, onExport }: RunRowProps) {
  return (
    <div className={`vtable-row${viewed ? ' selected' : ''}`} role="row" data-testid="run-row" data-run-id={r.runId}>
      <span>
        <input type="checkbox" data-testid="run-compare" aria-label={`compare ${r.name}`} checked={picked} onChange={onPick} />
      </span>
      <span className="ellipsis" title={r.runId}>
        {r.name}
        {r.live ? <span className="pill pill-live">live</span> : null}
      </span>
      <span className="muted">{r.mode}</span>
      <span className="ellipsis" title={r.model}>
        {r.model}
      </span>
      <span className="ellipsis">{r.example ?? '—'}</span>
      <span className="muted mono">{dateTime(r.createdAt)}</span>
      <span className="num mono">{r.steps}</span>
      <span className="num mono">{r.episodes}</span>
      <span className="num mono">{fmt(r.lastRewardMean)}</span>
      <span className="num mono">{percent(r.lastEvalSuccess)}</span>
      <span className="row-actions">
        <button type="button" className="btn btn-small" data-testid="run-open" onClick={onOpen}>
          {viewed ? 'Viewing' : 'Open'}
        </button>
        <button type="button" className="btn btn-small" data-testid="run-export" disabled={exporting !== null} onClick={onExport}>
          {exporting === true ? 'Exporting…' : 'Export'}
        </button>
      </span>
    </div>
  );
}

export function RunsPanel({ api, active, online, runId, refreshKey, onOpen }: RunsPanelProps) {
  const { runs, error, loading, refresh } = useRuns(api, active, online, refreshKey);
  const [picked, setPicked] = useState<string[]>([]);
  const exports = useExport(api);
  const shownError = error ?? exports.error;
  const exported = exports.exported;
  return (
    <div className="runs">
      <div className="panel-head">
        <h2>Runs</h2>
        <span className="muted">
          {runs.length} run{runs.length === 1 ? '' : 's'}
          {loading ? ' · loading…' : ''} · tick two to compare
        </span>
        <span className="sb-spacer" />
        <button type="button" className="btn btn-small" onClick={refresh}>
          Refresh
        </button>
      </div>
      {shownError ? (
        <div className="card error-card" role="alert">
          {shownError}
        </div>
      ) : null}
      {exported ? (
        <div className="card" data-testid="run-exported" role="status">
          Exported {runs.find((r) => r.runId === exported.runId)?.name ?? exported.runId} ({exported.files} files: steps, evals and episodes as CSV and JSONL, a TensorBoard event file) to{' '}
          <span className="mono">{exported.dir}</span> · <span className="mono">tensorboard --logdir {exported.dir}/tensorboard</span>
        </div>
      ) : null}
      <VirtualRows
        items={runs}
        rowHeight={30}
        columns={COLUMNS}
        testId="runs-table"
        className="runs-table"
        rowKey={(r) => r.runId}
        empty={loading ? 'Loading…' : 'No runs yet: connect to start one.'}
        header={RUNS_HEADER}
        renderRow={(r) => (
          <RunRowView
            run={r}
            viewed={r.runId === runId}
            picked={picked.includes(r.runId)}
            exporting={exports.exporting === null ? null : exports.exporting === r.runId}
            onPick={() => setPicked((p) => toggleCompare(p, r.runId))}
            onOpen={() => onOpen(r.runId)}
            onExport={() => exports.start(r.runId)}
          />
        )}
      />
      <CompareChart api={api} active={active} picked={picked} runs={runs} />
    </div>
  );
}

function CompareChart({ api, active, picked, runs }: { api: WorkbenchApi; active: boolean; picked: readonly string[]; runs: readonly RunRow[] }) {
  const [series, setSeries] = useState<{ a: StepPoint[]; b: StepPoint[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [a, b] = picked;
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
  const rows = useMemo(() => (series ? compareRows(series.a, series.b) : []), [series]);
  const describe = (id: string | undefined): string => {
    const r = runs.find((x) => x.runId === id);
    return r ? `${r.name} · ${dateTime(r.createdAt)}` : (id ?? '');
  };
  return (
    <div className="card chart-card compare" data-testid="chart-compare" data-points={rows.length} data-runs={picked.length}>
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
          active && (
            <ResponsiveContainer width="100%" height="100%">
              <LineChart data={rows} margin={{ top: 14, right: 8, bottom: 0, left: 0 }}>
                <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
                <XAxis dataKey="step" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...AXIS} />
                <YAxis yAxisId="r" {...AXIS} width={44} tickFormatter={(v: number) => fmt(v, 2)} />
                <YAxis yAxisId="s" orientation="right" domain={[0, 1]} {...AXIS} width={40} tickFormatter={(v: number) => percent(v)} />
                <Tooltip contentStyle={{ background: 'var(--bg-2)', border: '1px solid var(--border)', fontSize: 12 }} isAnimationActive={false} formatter={(v) => fmt(Number(v))} />
                <Legend wrapperStyle={{ fontSize: 11 }} />
                <Line yAxisId="r" dataKey="aReward" name="A reward" stroke="var(--accent)" dot={false} connectNulls isAnimationActive={false} />
                <Line yAxisId="r" dataKey="bReward" name="B reward" stroke="var(--warn)" dot={false} connectNulls isAnimationActive={false} />
                <Line yAxisId="s" dataKey="aSuccess" name="A success" stroke="var(--accent)" strokeDasharray="4 3" dot={false} connectNulls isAnimationActive={false} />
                <Line yAxisId="s" dataKey="bSuccess" name="B success" stroke="var(--warn)" strokeDasharray="4 3" dot={false} connectNulls isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          )
        )}
      </div>
    </div>
  );
}
