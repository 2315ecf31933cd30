// The research agent of a campaign: its state and limits used, the controls (pause, resume, hand
// back to the optimiser, ask before running / auto), and its decision log with every rationale —
// pending proposals can be approved or rejected here.
import type { AgentState, Decision } from '../../../../shared/campaign/api';
import { clockTime } from '../../format';
import { agentStatusText } from './campaign-view';

export interface AgentPanelProps {
  agent: AgentState | null;
  analysis: string | null;
  decisions: readonly Decision[];
  live: boolean;
  onCommand: (action: 'pause' | 'resume' | 'hand_back' | 'ask' | 'auto') => void;
  onDecide: (id: number, approve: boolean) => void;
}

export function AgentPanel({ agent, analysis, decisions, live, onCommand, onDecide }: AgentPanelProps) {
  if (!agent && decisions.length === 0)
    return (
      <div className="card muted" data-testid="agent-off">
        No research agent: the optimiser plans this campaign alone (add an <code>agent</code> section to the campaign
        file).
      </div>
    );
  return (
    <div className="card agent" data-testid="agent-panel">
      <div className="panel-head">
        <h3>Research agent</h3>
        {agent ? (
          <span className="muted" data-testid="agent-status">
            {agentStatusText(agent)}
          </span>
        ) : null}
        <span className="sb-spacer" />
        {agent && live ? <AgentControls agent={agent} onCommand={onCommand} /> : null}
      </div>
      {analysis ? (
        <p className="agent-analysis" data-testid="agent-analysis">
          {analysis}
        </p>
      ) : null}
      <ol className="decisions" data-testid="decisions">
        {decisions.map((d) => (
          <DecisionItem key={d.id} d={d} live={live} onDecide={onDecide} />
        ))}
      </ol>
    </div>
  );
}

function AgentControls({ agent, onCommand }: { agent: AgentState; onCommand: AgentPanelProps['onCommand'] }) {
  return (
    <>
      {agent.status === 'active' ? (
        <button type="button" className="btn btn-small" onClick={() => onCommand('pause')}>
          Pause
        </button>
      ) : null}
      {agent.status === 'paused' ? (
        <button type="button" className="btn btn-small" onClick={() => onCommand('resume')}>
          Resume
        </button>
      ) : null}
      <button type="button" className="btn btn-small" onClick={() => onCommand(agent.mode === 'ask' ? 'auto' : 'ask')}>
        {agent.mode === 'ask' ? 'Run proposals without asking' : 'Ask before running'}
      </button>
      {agent.status !== 'handed_back' ? (
        <button type="button" className="btn btn-small" onClick={() => onCommand('hand_back')}>
          Hand back to the optimiser
        </button>
      ) : null}
    </>
  );
}

function DecisionItem({ d, live, onDecide }: { d: Decision; live: boolean; onDecide: AgentPanelProps['onDecide'] }) {
  return (
    <li className={`decision decision-${d.status}`} data-testid="decision" data-kind={d.kind} data-status={d.status}>
      <span className="mono muted">{clockTime(d.t)}</span> <strong>{d.kind}</strong>{' '}
      <span className="status">{d.status}</span>
      {d.trial !== null ? <span className="muted"> trial {d.trial}</span> : null} — {d.rationale}
      {d.payload['params'] ? <span className="mono"> {JSON.stringify(d.payload['params'])}</span> : null}
      {Array.isArray(d.payload['errors']) ? (
        <span className="warn"> {(d.payload['errors'] as unknown[]).map(String).join('; ')}</span>
      ) : null}
      {d.status === 'pending' && live ? (
        <span className="row-actions">
          <button type="button" className="btn btn-small btn-primary" onClick={() => onDecide(d.id, true)}>
            Approve
          </button>
          <button type="button" className="btn btn-small" onClick={() => onDecide(d.id, false)}>
            Reject
          </button>
        </span>
      ) : null}
    </li>
  );
}
