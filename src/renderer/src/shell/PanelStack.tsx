// The workbench's panels, each kept mounted and hidden when not shown (so the editor and charts keep
// their state). Every panel is memoised, so each re-renders only when its own props change.
import { memo } from 'react';
import type { WorkbenchApi } from '../../../shared/workbench-api';
import { CampaignsPanel as CampaignsPanelView } from '../panels/campaigns/CampaignsPanel';
import { ChartsPanel as ChartsPanelView } from '../panels/charts/ChartsPanel';
import { ClientsPanel as ClientsPanelView } from '../panels/clients/ClientsPanel';
import { ConnectPanel as ConnectPanelView } from '../panels/connect/ConnectPanel';
import { EditorPanel as EditorPanelView } from '../panels/editor/EditorPanel';
import { InspectorPanel as InspectorPanelView } from '../panels/inspector/InspectorPanel';
import { RegressionsPanel as RegressionsPanelView } from '../panels/regressions/RegressionsPanel';
import { RewardsPanel as RewardsPanelView } from '../panels/rewards/RewardsPanel';
import { RunsPanel as RunsPanelView } from '../panels/runs/RunsPanel';
import type { AppStore } from '../store/store';
import type { ShellState } from './use-shell-state';
import type { PanelId } from './panels';

const CampaignsPanel = memo(CampaignsPanelView);
const ChartsPanel = memo(ChartsPanelView);
const ClientsPanel = memo(ClientsPanelView);
const ConnectPanel = memo(ConnectPanelView);
const EditorPanel = memo(EditorPanelView);
const InspectorPanel = memo(InspectorPanelView);
const RegressionsPanel = memo(RegressionsPanelView);
const RewardsPanel = memo(RewardsPanelView);
const RunsPanel = memo(RunsPanelView);

export interface PanelStackProps {
  panel: PanelId;
  api: WorkbenchApi;
  store: AppStore;
  state: ShellState;
  refreshKey: string;
  reportError: (message: string) => void;
  onOpenRun: (id: string) => void;
  onOpenTask: (dir: string) => void;
}

export function PanelStack({
  panel,
  api,
  store,
  state,
  refreshKey,
  reportError,
  onOpenRun,
  onOpenTask,
}: PanelStackProps) {
  const { session, runId, live, markers } = state;
  const online = state.connection === 'open';
  return (
    <div className="panels">
      <section className="panel" data-testid="panel-connect" hidden={panel !== 'connect'}>
        <ConnectPanel api={api} store={store} session={session} online={online} />
      </section>
      <section className="panel panel-flush" data-testid="panel-editor" hidden={panel !== 'editor'}>
        <EditorPanel api={api} store={store} session={session} markers={markers} />
      </section>
      <section className="panel" data-testid="panel-charts" hidden={panel !== 'charts'}>
        <ChartsPanel
          api={api}
          active={panel === 'charts'}
          runId={runId}
          live={live}
          session={session}
          steps={state.steps}
          evals={state.evals}
          markers={markers}
          loaded={state.loaded}
        />
      </section>
      <section className="panel" data-testid="panel-clients" hidden={panel !== 'clients'}>
        <ClientsPanel
          api={api}
          active={panel === 'clients'}
          connected={session !== null}
          clients={state.clients}
          liveLogs={state.logs}
          reportError={reportError}
        />
      </section>
      <section className="panel panel-flush" data-testid="panel-inspector" hidden={panel !== 'inspector'}>
        <InspectorPanel
          api={api}
          store={store}
          active={panel === 'inspector'}
          runId={runId}
          live={live}
          lastEpisode={state.lastEpisode}
        />
      </section>
      <section className="panel" data-testid="panel-runs" hidden={panel !== 'runs'}>
        <RunsPanel
          api={api}
          active={panel === 'runs'}
          online={online}
          runId={runId}
          refreshKey={refreshKey}
          onOpen={onOpenRun}
        />
      </section>
      <section className="panel" data-testid="panel-campaigns" hidden={panel !== 'campaigns'}>
        <CampaignsPanel
          api={api}
          active={panel === 'campaigns'}
          online={online}
          reportError={reportError}
          onOpenTask={onOpenTask}
        />
      </section>
      <section className="panel" data-testid="panel-rewards" hidden={panel !== 'rewards'}>
        <RewardsPanel api={api} active={panel === 'rewards'} runId={runId} live={live} refreshKey={refreshKey} />
      </section>
      <RegressionsSection panel={panel} api={api} online={online} />
    </div>
  );
}

function RegressionsSection({ panel, api, online }: { panel: PanelId; api: WorkbenchApi; online: boolean }) {
  return (
    <section className="panel" data-testid="panel-regressions" hidden={panel !== 'regressions'}>
      <RegressionsPanel api={api} active={panel === 'regressions'} online={online} />
    </section>
  );
}
