// Runs: every run stored in SQLite (virtualised, fast with 100,000 rows). "Open" makes a run the
// viewed one (charts and inspector then show it); "Export" writes its curves and episodes as CSV
// and JSONL and a TensorBoard event file; ticking two runs compares their reward and success
// curves on one chart.
import { useEffect, useState } from 'react';
import type { RunRow, WorkbenchApi } from '../../../../shared/workbench-api';
import { fmt } from '../../charts/series';
import { VirtualRows } from '../../components/VirtualRows';
import { dateTime, percent } from '../../format';
import { errorMessage } from '../../store/toasts';
import { CompareChart } from './CompareChart';
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
        <input
          type="checkbox"
          data-testid="run-compare"
          aria-label={`compare ${r.name}`}
          checked={picked}
          onChange={onPick}
        />
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
        <button
          type="button"
          className="btn btn-small"
          data-testid="run-export"
          disabled={exporting !== null}
          onClick={onExport}
        >
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
          Exported {runs.find((r) => r.runId === exported.runId)?.name ?? exported.runId} ({exported.files} files:
          steps, evals and episodes as CSV and JSONL, a TensorBoard event file) to{' '}
          <span className="mono">{exported.dir}</span> ·{' '}
          <span className="mono">tensorboard --logdir {exported.dir}/tensorboard</span>
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
