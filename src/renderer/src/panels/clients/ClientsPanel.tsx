// Clients: every client the session knows (local runner processes and remote ones seen by the
// worker) with status, code version, episode counts, restarts and last activity; restart/stop for
// local ones; the log of a selected client (or of the worker).
import { useCallback, useMemo, useState } from 'react';
import {
  clientSource,
  sameSource,
  WORKER_SOURCE,
  type ClientRow,
  type LogLine,
  type LogSource,
  type WorkbenchApi,
} from '../../../../shared/workbench-api';
import { useNow } from '../../components/hooks';
import { VirtualRows } from '../../components/VirtualRows';
import { errorMessage } from '../../store/toasts';
import { sortClients } from './client-logs';
import { ClientRowView, type ClientAction } from './ClientRowView';
import { LogView } from './LogView';

export interface ClientsPanelProps {
  api: WorkbenchApi;
  active: boolean;
  connected: boolean;
  clients: readonly ClientRow[];
  liveLogs: readonly LogLine[];
  reportError: (message: string) => void;
}

const COLUMNS = 'minmax(160px, 1.6fr) 64px 96px 96px 64px 64px 64px 56px 64px 96px 150px';

/** Runs one client action at a time per client; failures are reported, the busy set shown. */
function useClientActions(
  api: WorkbenchApi,
  reportError: (message: string) => void,
): { busy: ReadonlySet<string>; act: (clientId: string, action: ClientAction) => void } {
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const act = useCallback(
    (clientId: string, action: ClientAction): void => {
      setBusy((b) => new Set(b).add(clientId));
      api
        .clientAction({ clientId, action })
        .then(
          () => undefined,
          (err: unknown) => reportError(`${action} ${clientId}: ${errorMessage(err)}`),
        )
        .finally(() =>
          setBusy((b) => {
            const n = new Set(b);
            n.delete(clientId);
            return n;
          }),
        );
    },
    [api, reportError],
  );
  return { busy, act };
}

const HEADER = (
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
);

export function ClientsPanel({ api, active, connected, clients, liveLogs, reportError }: ClientsPanelProps) {
  const now = useNow(active ? 1000 : 60_000);
  const rows = useMemo(() => sortClients(clients), [clients]);
  const [selected, setSelected] = useState<LogSource | null>(null);
  const { busy, act } = useClientActions(api, reportError);
  const localCount = clients.filter((c) => c.local).length;
  const remoteCount = clients.length - localCount;
  const isSelected = (s: LogSource): boolean => selected !== null && sameSource(selected, s);
  return (
    <div className="clients">
      <div className="panel-head">
        <h2>Clients</h2>
        <span className="muted">
          {clients.length} client{clients.length === 1 ? '' : 's'} · {localCount} local · {remoteCount} remote
        </span>
        <span className="sb-spacer" />
        <button
          type="button"
          className={`btn btn-small${isSelected(WORKER_SOURCE) ? ' active' : ''}`}
          onClick={() => setSelected(WORKER_SOURCE)}
          disabled={!connected}
        >
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
        header={HEADER}
        renderRow={(c) => (
          <ClientRowView
            client={c}
            now={now}
            selected={isSelected(clientSource(c.clientId))}
            busy={busy.has(c.clientId)}
            onSelect={() => setSelected(clientSource(c.clientId))}
            onAction={(a) => act(c.clientId, a)}
          />
        )}
      />
      {selected ? (
        <LogView api={api} source={selected} active={active} liveLogs={liveLogs} onClose={() => setSelected(null)} />
      ) : null}
    </div>
  );
}
