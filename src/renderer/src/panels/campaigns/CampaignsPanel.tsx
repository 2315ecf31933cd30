// Campaigns: every campaign in the data folder (started here or by `agentjet campaign run` in a
// terminal — the store is shared), and for the selected one its trials, live curves, parallel
// coordinates, objective vs each parameter, Optuna's parameter importance and the research agent.
// Polls while shown (use-campaigns); commands go to the campaign's runner through the store.
import { useState } from 'react';
import type { CampaignSummary } from '../../../../shared/campaign/api';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { useNow } from '../../components/hooks';
import { campaignListText } from './campaign-view';
import { CampaignDetailView } from './CampaignDetailView';
import { NewTaskDialog } from './NewTaskDialog';
import { useCampaignStart, useCampaigns } from './use-campaigns';
import './campaigns.css';

export interface CampaignsPanelProps {
  api: WorkbenchApi;
  active: boolean;
  online: boolean;
  reportError: (message: string) => void;
  /** Opens a task folder in the editor (a local connect with the folder). */
  onOpenTask: (dir: string) => void;
}

export function CampaignsPanel({ api, active, online, reportError, onOpenTask }: CampaignsPanelProps) {
  const { list, selected, setSelected, detail, loadList, act } = useCampaigns(api, active && online, reportError);
  const { file, setFile, error, start } = useCampaignStart(api, (campaignId) => {
    setSelected(campaignId);
    void loadList();
  });
  const [dialog, setDialog] = useState(false);
  const now = useNow(5000);

  return (
    <div className="campaigns">
      <div className="panel-head">
        <h2>Campaigns</h2>
        <span className="muted">
          {list.length} campaign{list.length === 1 ? '' : 's'}
        </span>
        <span className="sb-spacer" />
        <input
          className="input campaign-file"
          data-testid="campaign-file"
          placeholder="/path/to/campaign.yaml"
          value={file}
          onChange={(e) => setFile(e.target.value)}
        />
        <button
          type="button"
          className="btn btn-primary btn-small"
          data-testid="campaign-start"
          disabled={!online || file.trim() === ''}
          onClick={start}
        >
          Start / resume
        </button>
        <button
          type="button"
          className="btn btn-small"
          data-testid="new-task"
          disabled={!online}
          onClick={() => setDialog(true)}
        >
          New task from description…
        </button>
      </div>
      {error ? (
        <div className="card error-card" role="alert">
          {error}
        </div>
      ) : null}
      <div className="campaigns-body">
        <CampaignList list={list} selected={selected} onSelect={setSelected} />
        {detail && detail.summary.campaignId === selected ? (
          <CampaignDetailView detail={detail} now={now} onAct={act} api={api} />
        ) : (
          <div className="muted campaign-detail">{selected ? 'Loading…' : ''}</div>
        )}
      </div>
      {dialog ? (
        <NewTaskDialog
          api={api}
          onClose={() => setDialog(false)}
          onOpen={(dir) => {
            setDialog(false);
            onOpenTask(dir);
          }}
        />
      ) : null}
    </div>
  );
}

function CampaignList({
  list,
  selected,
  onSelect,
}: {
  list: readonly CampaignSummary[];
  selected: string | null;
  onSelect: (campaignId: string) => void;
}) {
  return (
    <ul className="campaign-list" data-testid="campaign-list">
      {list.length === 0 ? (
        <li className="muted">
          No campaigns yet: start one from a campaign file, or run <code>agentjet campaign run FILE</code>.
        </li>
      ) : null}
      {list.map((c) => (
        <li key={c.campaignId}>
          <button
            type="button"
            className={`campaign-item${c.campaignId === selected ? ' selected' : ''}`}
            data-testid="campaign-item"
            data-campaign={c.campaignId}
            onClick={() => onSelect(c.campaignId)}
          >
            <span className="campaign-name">
              {c.name}
              {c.live ? <span className="pill pill-live">live</span> : null}
            </span>
            <span className="muted">{campaignListText(c)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
