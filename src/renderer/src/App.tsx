// The workbench shell: nav rail, status bar, the panels (shell/PanelStack) and the global error
// toasts. The shell reads the whole store and so re-renders on every pushed event (several a second
// while a run trains); the panels are memoised, so each re-renders only when its own props change.
import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../shared/workbench-api';
import type { ConnectionResult } from './api/connection';
import { NavRail } from './shell/NavRail';
import { PanelStack } from './shell/PanelStack';
import { StatusBar } from './shell/StatusBar';
import { Toasts } from './shell/Toasts';
import type { PanelId } from './shell/panels';
import { useShellActions, useShellState } from './shell/use-shell-state';
import { pushToast, useApp, type AppStore } from './store/store';
import { startSync } from './store/sync';

export function App({ store, connection }: { store: AppStore; connection: ConnectionResult }) {
  if (!connection.ok) {
    return (
      <div className="fatal" role="alert" data-testid="fatal-error">
        <h1>AgentJet Workbench</h1>
        <p>{connection.message}</p>
      </div>
    );
  }
  return <Workbench store={store} api={connection.connection.api} conn={connection.connection} />;
}

function Workbench({
  store,
  api,
  conn,
}: {
  store: AppStore;
  api: WorkbenchApi;
  conn: Extract<ConnectionResult, { ok: true }>['connection'];
}) {
  const [panel, setPanel] = useState<PanelId>('connect');
  const reportError = useCallback((m: string) => pushToast(store, m), [store]);

  useEffect(
    () => startSync({ api, store, status: conn.status, onStatus: conn.onStatus, reportError }),
    [api, store, conn, reportError],
  );

  const state = useShellState(store);
  // A panel asked the inspector to show an episode (requestInspect): switch to it.
  const inspect = useApp(store, (s) => s.inspect);
  useEffect(() => {
    if (inspect) setPanel('inspector');
  }, [inspect]);
  const { openRunById, backToLive, onCloseToast, openTask } = useShellActions(store, api, setPanel, reportError);
  const { session } = state;

  const crashed = state.clients.filter((c) => c.status === 'crashed').length;
  const badges: Partial<Record<PanelId, string>> = {};
  if (crashed) badges.clients = String(crashed);
  const refreshKey = `${session?.runId ?? ''}:${session ? 'on' : 'off'}:${Math.floor((session?.step ?? 0) / 5)}`;

  return (
    <div className="app">
      <NavRail active={panel} onSelect={setPanel} badges={badges} />
      <div className="main">
        <StatusBar
          connection={state.connection}
          session={session}
          pendingActivity={state.pending}
          viewedRunId={state.runId}
          live={state.live}
          onBackToLive={backToLive}
        />
        <PanelStack
          panel={panel}
          api={api}
          store={store}
          state={state}
          refreshKey={refreshKey}
          reportError={reportError}
          onOpenRun={openRunById}
          onOpenTask={openTask}
        />
      </div>
      <Toasts toasts={state.toasts} onClose={onCloseToast} />
    </div>
  );
}
