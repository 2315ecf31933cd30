// Campaigns: every campaign in the data folder (started here or by `agentjet campaign run` in a
// terminal — the store is shared), and for the selected one its trials, live curves, parallel
// coordinates, objective vs each parameter, Optuna's parameter importance and the research agent.
// Polls while shown; commands go to the campaign's runner through the store.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { CampaignDetail, CampaignSummary } from '../../../../shared/campaign/api';
import { fmtNum } from '../../../../shared/campaign/charts/scales';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { useNow } from '../../components/hooks';
import { errorMessage } from '../../store/toasts';
import { AgentPanel } from './AgentPanel';
import { campaignCharts, specOf } from './campaign-view';
import { NewTaskDialog } from './NewTaskDialog';
import { SceneSvg } from './SceneSvg';
import { TrialsTable } from './TrialsTable';
import './campaigns.css';

export interface CampaignsPanelProps {
  api: WorkbenchApi;
  active: boolean;
  online: boolean;
  reportError: (message: string) => void;
  /** Opens a task folder in the editor (a local connect with the folder). */
  onOpenTask: (dir: string) => void;
}

function usePoll(enabled: boolean, ms: number, fn: () => Promise<void>): void {
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    let timer = 0;
    const tick = async (): Promise<void> => {
      await fn().catch(() => undefined);
      if (live) timer = window.setTimeout(() => void tick(), ms);
    };
    void tick();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [enabled, ms, fn]);
}

export function CampaignsPanel({ api, active, online, reportError, onOpenTask }: CampaignsPanelProps) {
  const [list, setList] = useState<CampaignSummary[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [detail, setDetail] = useState<CampaignDetail | null>(null);
  const [file, setFile] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [dialog, setDialog] = useState(false);
  const now = useNow(5000);

  const loadList = useCallback(async () => {
    const r = await api.campaigns({});
    setList(r.campaigns);
    setSelected((s) => s ?? r.campaigns[0]?.campaignId ?? null);
  }, [api]);
  const loadDetail = useCallback(async () => {
    if (selected) setDetail(await api.campaign({ campaignId: selected }));
  }, [api, selected]);
  usePoll(active && online, 4000, loadList);
  usePoll(active && online && selected !== null, 2000, loadDetail);

  const act = (p: Promise<unknown>): void =>
    void p.then(
      () => loadDetail(),
      (err: unknown) => reportError(errorMessage(err)),
    );
  const start = (): void => {
    setError(null);
    api.campaignStart({ file: file.trim() }).then(
      (r) => {
        setSelected(r.campaignId);
        void loadList();
      },
      (err: unknown) => setError(errorMessage(err)),
    );
  };

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
                onClick={() => setSelected(c.campaignId)}
              >
                <span className="campaign-name">
                  {c.name}
                  {c.live ? <span className="pill pill-live">live</span> : null}
                </span>
                <span className="muted">
                  {c.state} · {c.trials}/{c.budgetTrials} trials · {c.pruned} pruned · {c.failed} failed · best{' '}
                  {c.bestValue === null ? '—' : fmtNum(c.bestValue)}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {detail && detail.summary.campaignId === selected ? (
          <Detail detail={detail} now={now} onAct={act} api={api} />
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

function Detail({
  detail,
  now,
  onAct,
  api,
}: {
  detail: CampaignDetail;
  now: number;
  onAct: (p: Promise<unknown>) => void;
  api: WorkbenchApi;
}) {
  const spec = useMemo(() => specOf(detail), [detail]);
  const charts = useMemo(() => (spec ? campaignCharts(detail, spec) : []), [detail, spec]);
  const s = detail.summary;
  const id = s.campaignId;
  const trials = detail.trials.filter((t) => t.state !== 'interrupted');
  return (
    <div className="campaign-detail" data-testid="campaign-detail" data-campaign={id} data-trials={trials.length}>
      <div className="card">
        <div className="panel-head">
          <h3>{s.name}</h3>
          <span className="status" data-testid="campaign-state">
            {s.state}
          </span>
          {s.live ? <span className="pill pill-live">live</span> : null}
          <span className="muted">
            {s.trials}/{s.budgetTrials} trials · {s.completed} completed · {s.pruned} pruned · {s.failed} failed · wall{' '}
            {(s.wallS / 60).toFixed(1)} min · compute {(detail.computeS / 60).toFixed(1)} min
          </span>
          <span className="sb-spacer" />
          {s.live ? (
            <button
              type="button"
              className="btn btn-small btn-danger"
              data-testid="campaign-stop"
              onClick={() => onAct(api.campaignCommand({ campaignId: id, command: { kind: 'stop' } }))}
            >
              Stop campaign
            </button>
          ) : null}
        </div>
        {s.question ? <p className="campaign-question">{s.question}</p> : null}
        {s.note ? <p className="muted">{s.note}</p> : null}
        {detail.reports.html ? (
          <p className="muted mono">
            report: {detail.reports.html}
            {detail.reports.markdown ? ` · ${detail.reports.markdown}` : ''}
          </p>
        ) : null}
      </div>
      <TrialsTable
        trials={trials}
        params={spec ? Object.keys(spec.search) : []}
        now={now}
        onStop={
          s.live
            ? (n) =>
                onAct(
                  api.campaignCommand({
                    campaignId: id,
                    command: { kind: 'stop_trial', trial: n, reason: 'stopped from the workbench' },
                  }),
                )
            : null
        }
      />
      <div className="campaign-charts">
        {charts.map((c) => (
          <div key={c.id} className={`card campaign-chart${c.wide ? ' wide' : ''}`}>
            <SceneSvg scene={c.scene} testId={`campaign-chart-${c.id}`} />
          </div>
        ))}
      </div>
      <AgentPanel
        agent={detail.agent}
        analysis={detail.analysis}
        decisions={detail.decisions}
        live={s.live}
        onCommand={(action) => onAct(api.campaignCommand({ campaignId: id, command: { kind: 'agent', action } }))}
        onDecide={(decisionId, approve) => onAct(api.campaignDecision({ campaignId: id, decisionId, approve }))}
      />
    </div>
  );
}
