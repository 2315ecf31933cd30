// The workbench's panels, each kept mounted and hidden when not shown (so the editor and charts keep
// their state). Every panel is memoised, so each re-renders only when its own props change.
import { memo, type ReactNode } from 'react';
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

export function PanelStack(props: PanelStackProps) {
  const { panel, api, store, state, refreshKey, reportError, onOpenRun, onOpenTask } = props;
  const { session, runId, live, markers, connection } = state;
  const online = connection === 'open';
  return (
    <div className="panels">
      <Frame id="connect" shown={panel}>
        <ConnectPanel api={api} store={store} session={session} online={online} />
      </Frame>
      <Frame id="editor" shown={panel}>
        <EditorPanel api={api} store={store} session={session} markers={markers} />
      </Frame>
      <Frame id="charts" shown={panel}>
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
      </Frame>
      <Frame id="clients" shown={panel}>
        <ClientsPanel
          api={api}
          active={panel === 'clients'}
          connected={session !== null}
          clients={state.clients}
          liveLogs={state.logs}
          reportError={reportError}
        />
      </Frame>
      <Frame id="inspector" shown={panel}>
        <InspectorPanel
          api={api}
          store={store}
          active={panel === 'inspector'}
          runId={runId}
          live={live}
          lastEpisode={state.lastEpisode}
        />
      </Frame>
      <Frame id="runs" shown={panel}>
        <RunsPanel
          api={api}
          active={panel === 'runs'}
          online={online}
          runId={runId}
          refreshKey={refreshKey}
          onOpen={onOpenRun}
        />
      </Frame>
      <Frame id="campaigns" shown={panel}>
        <CampaignsPanel
          api={api}
          active={panel === 'campaigns'}
          online={online}
          reportError={reportError}
          onOpenTask={onOpenTask}
        />
      </Frame>
      <Frame id="rewards" shown={panel}>
        <RewardsPanel api={api} active={panel === 'rewards'} runId={runId} live={live} refreshKey={refreshKey} />
      </Frame>
      <Frame id="regressions" shown={panel}>
        <RegressionsPanel api={api} active={panel === 'regressions'} online={online} />
      </Frame>
    </div>
  );
}

/** Panels that fill their frame edge to edge (no padding). */
const FLUSH: ReadonlySet<PanelId> = new Set<PanelId>(['editor', 'inspector']);

/** One panel's frame: always mounted, hidden unless it is the panel shown. */
function Frame({ id, shown, children }: { id: PanelId; shown: PanelId; children: ReactNode }) {
  return (
    <section
      className={FLUSH.has(id) ? 'panel panel-flush' : 'panel'}
      data-testid={`panel-${id}`}
      hidden={shown !== id}
    >
      {children}
    </section>
  );
}
