// One campaign in detail: its summary card (stop button while live, question, note, report paths),
// the trials table, the charts and the research agent's panel.
import { useMemo } from 'react';
import type { CampaignDetail } from '../../../../shared/campaign/api';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { AgentPanel } from './AgentPanel';
import { campaignCharts, campaignDetailText, specOf } from './campaign-view';
import { SceneSvg } from './SceneSvg';
import { TrialsTable } from './TrialsTable';

export interface CampaignDetailViewProps {
  detail: CampaignDetail;
  now: number;
  onAct: (p: Promise<unknown>) => void;
  api: WorkbenchApi;
}

export function CampaignDetailView({ detail, now, onAct, api }: CampaignDetailViewProps) {
  const spec = useMemo(() => specOf(detail), [detail]);
  const charts = useMemo(() => (spec ? campaignCharts(detail, spec) : []), [detail, spec]);
  const s = detail.summary;
  const id = s.campaignId;
  const trials = detail.trials.filter((t) => t.state !== 'interrupted');
  return (
    <div className="campaign-detail" data-testid="campaign-detail" data-campaign={id} data-trials={trials.length}>
      <SummaryCard
        detail={detail}
        onStop={() => onAct(api.campaignCommand({ campaignId: id, command: { kind: 'stop' } }))}
      />
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

function SummaryCard({ detail, onStop }: { detail: CampaignDetail; onStop: () => void }) {
  const s = detail.summary;
  return (
    <div className="card">
      <div className="panel-head">
        <h3>{s.name}</h3>
        <span className="status" data-testid="campaign-state">
          {s.state}
        </span>
        {s.live ? <span className="pill pill-live">live</span> : null}
        <span className="muted">{campaignDetailText(s, detail.computeS)}</span>
        <span className="sb-spacer" />
        {s.live ? (
          <button type="button" className="btn btn-small btn-danger" data-testid="campaign-stop" onClick={onStop}>
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
  );
}
