// Regressions: the regression board across commits (`agentjet regress run` fills it; docs/inner-loop.md)
// read from the store — every benchmark figure by commit, mean ± SE over seeds, the predecessors'
// band on hover, and flagged cells (outside the band) marked ▲/▼.
import { useEffect, useState } from 'react';
import type { BoardFigure } from '../../../../shared/regress';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { dateTime } from '../../format';
import { errorMessage } from '../../store/toasts';
import { FigureChart } from './FigureChart';
import { cellText, cellTitle, regressMatrix } from './regress-matrix';
import './regressions.css';

export function RegressionsPanel({ api, active, online }: { api: WorkbenchApi; active: boolean; online: boolean }) {
  const [figures, setFigures] = useState<BoardFigure[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [bench, setBench] = useState('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active || !online) return;
    let live = true;
    api.regressBoard({}).then(
      (r) => {
        if (!live) return;
        setFigures(r.figures);
        setError(null);
      },
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [api, active, online, tick]);
  const benches = [...new Set((figures ?? []).map((f) => f.bench))].sort();
  const shown = (figures ?? []).filter((f) => bench === '' || f.bench === bench);
  const { columns, rows } = regressMatrix(shown);
  const flagged = rows.reduce((n, r) => n + r.cells.filter((c) => c?.flag).length, 0);
  // The charted figure: the one picked in the table's head, else the first with a flagged commit, else the first.
  const [picked, setPicked] = useState<string | null>(null);
  const chart =
    shown.find((f) => `${f.bench}/${f.figure}` === picked) ??
    shown.find((f) => f.rows.some((r) => r.flag)) ??
    shown[0] ??
    null;
  return (
    <div className="rg-panel" data-testid="regressions" data-figures={shown.length} data-flagged={flagged}>
      <div className="rg-toolbar">
        <h2>Regressions</h2>
        <label>
          bench{' '}
          <select value={bench} onChange={(e) => setBench(e.target.value)}>
            <option value="">all</option>
            {benches.map((b) => (
              <option key={b}>{b}</option>
            ))}
          </select>
        </label>
        <span className="rg-muted">
          {rows.length} commits · {columns.length} figures · {flagged} flagged
        </span>
        <button type="button" onClick={() => setTick((t) => t + 1)}>
          reload
        </button>
      </div>
      {error && (
        <p className="rg-error" role="alert">
          {error}
        </p>
      )}
      {figures !== null && figures.length === 0 && (
        <p className="rg-muted" data-testid="regressions-empty">
          No figures stored yet. Run <code>agentjet regress run --last 3 --bench train,merge --smoke true</code> (it
          benchmarks each commit in a scratch worktree and stores every figure here).
        </p>
      )}
      {chart && <FigureChart figure={chart} />}
      {columns.length > 0 && (
        <BoardTable
          columns={columns}
          rows={rows}
          picked={chart ? `${chart.bench}/${chart.figure}` : null}
          onPick={setPicked}
        />
      )}
    </div>
  );
}

function BoardTable({
  columns,
  rows,
  picked,
  onPick,
}: ReturnType<typeof regressMatrix> & { picked: string | null; onPick: (key: string) => void }) {
  return (
    <div className="rg-scroll">
      <table className="rg-table">
        <thead>
          <tr>
            <th>commit</th>
            <th>date</th>
            {columns.map((c) => (
              <th
                key={c.key}
                title={`${c.key} (click to chart)`}
                className={picked === c.key ? 'rg-picked' : 'rg-pick'}
                onClick={() => onPick(c.key)}
              >
                <span className="rg-bench">{c.bench}</span> {c.figure}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.commit} data-testid="regress-row" data-commit={r.commit}>
              <td className="rg-commit" title={r.subject}>
                <code>{r.commit.slice(0, 8)}</code> {r.subject}
              </td>
              <td className="rg-muted">{dateTime(r.commitDate * 1000)}</td>
              {r.cells.map((c, i) =>
                c === null ? (
                  <td key={i} className="rg-muted">
                    —
                  </td>
                ) : (
                  <td key={i} className={c.flag ? `rg-flag ${c.flag}` : ''} title={cellTitle(c)}>
                    {c.flag === 'above' ? '▲ ' : c.flag === 'below' ? '▼ ' : ''}
                    {cellText(c)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
