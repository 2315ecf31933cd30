// Clients: every client the session knows (local runner processes and remote ones seen by the
// worker) with status, code version, episode counts, restarts and last activity; restart/stop for
// local ones; the log of a selected client (or of the worker).
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ClientRow, LogLine, WorkbenchApi } from '../../../../shared/workbench-api';
import { shortVersion } from '../../charts/series';
import { useNow } from '../../components/hooks';
import { VirtualRows } from '../../components/VirtualRows';
import { clockTime, relativeTime } from '../../format';
import { errorMessage } from '../../store/toasts';
import { clientLogLines, sortClients } from './client-logs';

export interface ClientsPanelProps {
  api: WorkbenchApi;
  active: boolean;
  connected: boolean;
  clients: readonly ClientRow[];
  liveLogs: readonly LogLine[];
  reportError: (message: string) => void;
}

const COLUMNS = 'minmax(160px, 1.6fr) 64px 96px 96px 64px 64px 64px 56px 64px 96px 150px';

export function ClientsPanel({ api, active, connected, clients, liveLogs, reportError }: ClientsPanelProps) {
  const now = useNow(active ? 1000 : 60_000);
  const rows = useMemo(() => sortClients(clients), [clients]);
  const [selected, setSelected] = useState<string | null>(null);
  const [busy, setBusy] = useState<Set<string>>(new Set());

  const act = async (clientId: string, action: ClientAction): Promise<void> => {
    setBusy((b) => new Set(b).add(clientId));
    try {
      await api.clientAction({ clientId, action });
    } catch (err) {
      reportError(`${action} ${clientId}: ${errorMessage(err)}`);
    } finally {
      setBusy((b) => {
        const n = new Set(b);
        n.delete(clientId);
        return n;
      });
    }
  };

  const localCount = clients.filter((c) => c.local).length;
  return (
    <div className="clients">
      <div className="panel-head">
        <h2>Clients</h2>
        <span className="muted">
          {clients.length} client{clients.length === 1 ? '' : 's'} · {localCount} local · {clients.length - localCount} remote
        </span>
        <span className="sb-spacer" />
        <button type="button" className={`btn btn-small${selected === 'worker' ? ' active' : ''}`} onClick={() => setSelected('worker')} disabled={!connected}>
          Worker log
        </button>
      </div>
      <VirtualRows
        items={rows}
        rowHeight={30}
        columns={COLUMNS}
        testId="clients-table"
        rowKey={(c) => c.clientId}
        empty={connected ? 'No clients yet.' : 'Not connected.'}
        header={
          <>
            <span>Client</span>
            <span>Kind</span>
            <span>Status</span>
            <span>Code</span>
            <span className="num">Ended</span>
            <span className="num">Aborted</span>
            <span className="num">Expired</span>
            <span className="num">Open</span>
            <span className="num">Restarts</span>
            <span>Last activity</span>
            <span />
          </>
        }
        renderRow={(c) => (
          <div
            className={`vtable-row${selected === c.clientId ? ' selected' : ''}`}
            role="row"
            data-testid="client-row"
            data-client-id={c.clientId}
            data-code-version={c.codeVersion ?? ''}
            data-status={c.status}
            onClick={() => setSelected(c.clientId)}
          >
            <span className="mono ellipsis" title={c.pid !== null ? `${c.clientId} (pid ${c.pid})` : c.clientId}>
              {c.clientId}
            </span>
            <span className="muted">{c.local ? 'local' : 'remote'}</span>
            <span>
              <span className={`status status-${c.status}`}>{c.status}</span>
            </span>
            <span className="mono" title={c.codeVersion ?? ''}>
              {shortVersion(c.codeVersion)}
            </span>
            <span className="num mono">{c.ended}</span>
            <span className={`num mono${c.aborted ? ' warn' : ''}`}>{c.aborted}</span>
            <span className={`num mono${c.expired ? ' warn' : ''}`}>{c.expired}</span>
            <span className="num mono">{c.openEpisodes}</span>
            <span className={`num mono${c.restarts ? ' warn' : ''}`}>{c.restarts}</span>
            <span className="muted">{relativeTime(now, c.lastActivityAt)}</span>
            <span className="row-actions">
              {c.local
                ? localActions(c.status).map((action) => (
                    <button
                      key={action}
                      type="button"
                      className="btn btn-small"
                      data-testid={`client-${action}`}
                      disabled={busy.has(c.clientId)}
                      onClick={(e) => {
                        e.stopPropagation();
                        void act(c.clientId, action);
                      }}
                    >
                      {ACTION_LABELS[action]}
                    </button>
                  ))
                : null}
            </span>
          </div>
        )}
      />
      {selected ? <LogView api={api} source={selected} active={active} liveLogs={liveLogs} onClose={() => setSelected(null)} /> : null}
    </div>
  );
}

type ClientAction = 'restart' | 'stop' | 'start';
const ACTION_LABELS: Record<ClientAction, string> = { restart: 'Restart', stop: 'Stop', start: 'Start' };

/** Restart always; Start for a stopped or crashed client, Stop otherwise. */
function localActions(status: ClientRow['status']): ClientAction[] {
  return ['restart', status === 'stopped' || status === 'crashed' ? 'start' : 'stop'];
}

function LogView({ api, source, active, liveLogs, onClose }: { api: WorkbenchApi; source: string; active: boolean; liveLogs: readonly LogLine[]; onClose: () => void }) {
  const [fetched, setFetched] = useState<LogLine[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [follow, setFollow] = useState(true);
  useEffect(() => {
    let live = true;
    setFetched([]);
    setError(null);
    api.logs({ clientId: source, limit: 2000 }).then(
      (r) => live && setFetched(r.lines),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [api, source]);
  const lines = useMemo(() => clientLogLines(fetched, liveLogs, source), [fetched, liveLogs, source]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: lines.length, getScrollElement: () => scrollRef.current, estimateSize: () => 18, overscan: 20 });
  useEffect(() => {
    if (follow && active && lines.length > 0) v.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [follow, active, lines.length, v]);
  return (
    <div className="card logview" data-testid="client-log">
      <div className="chart-head">
        <span className="chart-title">
          Log — <span className="mono">{source}</span>
        </span>
        <span className="muted">{lines.length} lines</span>
        <span className="sb-spacer" />
        <label className="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> follow
        </label>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      {error ? (
        <div className="error-card" role="alert">
          {error}
        </div>
      ) : null}
      <div className="log-body" ref={scrollRef}>
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((it) => {
            const l = lines[it.index]!;
            return (
              <div key={it.key} className={`log-line log-${l.stream}`} style={{ transform: `translateY(${it.start}px)` }}>
                <span className="log-t">{clockTime(l.t)}</span>
                {l.line}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
