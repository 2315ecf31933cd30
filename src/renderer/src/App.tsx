// The workbench shell: nav rail, status bar, the panels (kept mounted, hidden when not shown,
// so the editor and charts keep their state) and the global error toasts. The shell reads the
// whole store and so re-renders on every pushed event (several a second while a run trains); the
// panels are memoised, so each re-renders only when its own props change.
import { memo, useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../shared/workbench-api';
import type { ConnectionResult } from './api/connection';
import { CampaignsPanel as CampaignsPanelView } from './panels/campaigns/CampaignsPanel';
import { ChartsPanel as ChartsPanelView } from './panels/charts/ChartsPanel';
import { ClientsPanel as ClientsPanelView } from './panels/clients/ClientsPanel';
import { ConnectPanel as ConnectPanelView } from './panels/connect/ConnectPanel';
import { EditorPanel as EditorPanelView } from './panels/editor/EditorPanel';
import { InspectorPanel as InspectorPanelView } from './panels/inspector/InspectorPanel';
import { RewardsPanel as RewardsPanelView } from './panels/rewards/RewardsPanel';
import { RunsPanel as RunsPanelView } from './panels/runs/RunsPanel';
import { NavRail } from './shell/NavRail';
import { StatusBar } from './shell/StatusBar';
import { Toasts } from './shell/Toasts';
import type { PanelId } from './shell/panels';
import { isLive, latestEpisode, openRun } from './store/state';
import { closeToast, pushToast, useApp, type AppStore } from './store/store';
import { startSync } from './store/sync';

const CampaignsPanel = memo(CampaignsPanelView);
const ChartsPanel = memo(ChartsPanelView);
const ClientsPanel = memo(ClientsPanelView);
const ConnectPanel = memo(ConnectPanelView);
const EditorPanel = memo(EditorPanelView);
const InspectorPanel = memo(InspectorPanelView);
const RewardsPanel = memo(RewardsPanelView);
const RunsPanel = memo(RunsPanelView);

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

/** What the shell reads from the store (each slice its own subscription). */
function useShellState(store: AppStore) {
  return {
    connection: useApp(store, (s) => s.connection),
    session: useApp(store, (s) => s.session),
    runId: useApp(store, (s) => s.runId),
    live: useApp(store, isLive),
    steps: useApp(store, (s) => s.steps),
    evals: useApp(store, (s) => s.evals),
    markers: useApp(store, (s) => s.markers),
    loaded: useApp(store, (s) => s.metricsLoaded),
    clients: useApp(store, (s) => s.clients),
    logs: useApp(store, (s) => s.logs),
    lastEpisode: useApp(store, latestEpisode),
    toasts: useApp(store, (s) => s.toasts),
    pending: useApp(store, (s) => s.pending),
  };
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

  const {
    connection,
    session,
    runId,
    live,
    steps,
    evals,
    markers,
    loaded,
    clients,
    logs,
    lastEpisode,
    toasts,
    pending,
  } = useShellState(store);

  const online = connection === 'open';
  const openRunById = useCallback(
    (id: string) => {
      store.setState((s) => openRun(s, id));
      setPanel('charts');
    },
    [store],
  );
  const backToLive = useCallback(() => {
    const id = store.getState().session?.runId;
    if (id) store.setState((s) => openRun(s, id));
  }, [store]);
  const onCloseToast = useCallback((id: number) => closeToast(store, id), [store]);
  // A task folder from "New task from description" opens in the editor: a local run of that folder.
  const openTask = useCallback(
    (dir: string) => {
      setPanel('editor');
      api
        .connectLocal({ example: dir })
        .catch((err: unknown) => reportError(err instanceof Error ? err.message : String(err)));
    },
    [api, reportError],
  );

  const crashed = clients.filter((c) => c.status === 'crashed').length;
  const badges: Partial<Record<PanelId, string>> = {};
  if (crashed) badges.clients = String(crashed);
  const refreshKey = `${session?.runId ?? ''}:${session ? 'on' : 'off'}:${Math.floor((session?.step ?? 0) / 5)}`;

  return (
    <div className="app">
      <NavRail active={panel} onSelect={setPanel} badges={badges} />
      <div className="main">
        <StatusBar
          connection={connection}
          session={session}
          pendingActivity={pending}
          viewedRunId={runId}
          live={live}
          onBackToLive={backToLive}
        />
        <div className="panels">
          <section className="panel" data-testid="panel-connect" hidden={panel !== 'connect'}>
            <ConnectPanel api={api} store={store} session={session} online={online} />
          </section>
          <section className="panel panel-flush" data-testid="panel-editor" hidden={panel !== 'editor'}>
            <EditorPanel api={api} store={store} session={session} markers={markers} />
          </section>
          <section className="panel" data-testid="panel-charts" hidden={panel !== 'charts'}>
            <ChartsPanel
              active={panel === 'charts'}
              runId={runId}
              live={live}
              session={session}
              steps={steps}
              evals={evals}
              markers={markers}
              loaded={loaded}
            />
          </section>
          <section className="panel" data-testid="panel-clients" hidden={panel !== 'clients'}>
            <ClientsPanel
              api={api}
              active={panel === 'clients'}
              connected={session !== null}
              clients={clients}
              liveLogs={logs}
              reportError={reportError}
            />
          </section>
          <section className="panel panel-flush" data-testid="panel-inspector" hidden={panel !== 'inspector'}>
            <InspectorPanel
              api={api}
              active={panel === 'inspector'}
              runId={runId}
              live={live}
              lastEpisode={lastEpisode}
            />
          </section>
          <section className="panel" data-testid="panel-runs" hidden={panel !== 'runs'}>
            <RunsPanel
              api={api}
              active={panel === 'runs'}
              online={online}
              runId={runId}
              refreshKey={refreshKey}
              onOpen={openRunById}
            />
          </section>
          <section className="panel" data-testid="panel-campaigns" hidden={panel !== 'campaigns'}>
            <CampaignsPanel
              api={api}
              active={panel === 'campaigns'}
              online={online}
              reportError={reportError}
              onOpenTask={openTask}
            />
          </section>
          <section className="panel" data-testid="panel-rewards" hidden={panel !== 'rewards'}>
            <RewardsPanel api={api} active={panel === 'rewards'} runId={runId} live={live} refreshKey={refreshKey} />
          </section>
        </div>
      </div>
      <Toasts toasts={toasts} onClose={onCloseToast} />
    </div>
  );
}
