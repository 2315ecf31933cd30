// The top status bar: connection, session state, step, weight version, batch fill, pool, activity.
import type { Session } from '../../../shared/workbench-api';
import type { ConnectionStatus } from '../api/ws-transport';
import { batchFill } from '../charts/series';
import { activityText } from '../format';

export interface StatusBarProps {
  connection: ConnectionStatus;
  session: Session | null;
  /** A connect/disconnect call in flight (before the session reports its own activity). */
  pendingActivity: string | null;
  viewedRunId: string | null;
  live: boolean;
  onBackToLive: () => void;
}

function BatchItem({ session }: { session: Session | null }) {
  const fill = batchFill(session?.progress ?? null);
  if (!fill) return null;
  return (
    <span className="sb-item sb-batch" title={fill.detail || fill.label} data-testid="session-batch">
      <span className="sb-label">batch {session?.progress?.strategy}</span>
      <span className={`meter${fill.ready ? ' ready' : ''}`}>
        <span className="meter-fill" style={{ width: `${fill.fraction * 100}%` }} />
      </span>
      <span className="mono">{fill.label}</span>
    </span>
  );
}

function ActivityItem({ text, fraction }: { text: string | null; fraction: number | null }) {
  if (!text) return null;
  return (
    <span className="sb-item sb-activity" role="status">
      <span className="spinner" aria-hidden="true" />
      <span data-testid="activity">{text}</span>
      {fraction !== null ? (
        <span className="meter small">
          <span className="meter-fill" style={{ width: `${fraction * 100}%` }} />
        </span>
      ) : null}
    </span>
  );
}

/** The right side: a stored run being viewed (with the way back), the session's worker, its problem. */
function SessionTail({
  session,
  viewedRunId,
  live,
  onBackToLive,
}: Pick<StatusBarProps, 'session' | 'viewedRunId' | 'live' | 'onBackToLive'>) {
  return (
    <>
      {viewedRunId && !live ? (
        <span className="sb-item sb-viewing">
          viewing stored run <span className="mono">{viewedRunId}</span>
          {session ? (
            <button type="button" className="btn btn-small" onClick={onBackToLive}>
              back to live
            </button>
          ) : null}
        </span>
      ) : null}
      {session ? (
        <span className="sb-item sb-muted" title={session.workerUrl}>
          {session.mode} · {session.model}
          {session.example ? ` · ${session.example}` : ''}
        </span>
      ) : null}
      {session?.error ? (
        <span
          className="sb-item sb-error"
          title={session.error.message}
          data-testid="session-error"
          data-code={session.error.code}
        >
          ⚠ {session.error.message}
        </span>
      ) : null}
    </>
  );
}

export function StatusBar({ connection, session, pendingActivity, viewedRunId, live, onBackToLive }: StatusBarProps) {
  const state = session?.state ?? 'disconnected';
  return (
    <header className="statusbar">
      <span className="sb-title">AgentJet Workbench</span>
      {connection !== 'open' ? (
        <span className={`sb-conn sb-conn-${connection}`} data-testid="connection-status" role="status">
          {connection === 'reconnecting'
            ? 'reconnecting…'
            : connection === 'connecting'
              ? 'connecting…'
              : 'connection closed'}
        </span>
      ) : null}
      <span className="sb-item">
        <span className={`state-dot state-${state}`} aria-hidden="true" />
        <span data-testid="session-state" className="sb-strong">
          {state}
        </span>
      </span>
      <span className="sb-item" title="Training steps completed">
        <span className="sb-label">step</span>
        <span data-testid="session-step" className="sb-strong mono">
          {session?.step ?? 0}
        </span>
      </span>
      <span className="sb-item" title="Weight version">
        <span className="sb-label">weights</span>
        <span className="sb-strong mono" data-testid="session-weight-version">
          v{session?.weightVersion ?? 0}
        </span>
      </span>
      <BatchItem session={session} />
      {session ? (
        <span className="sb-item" title="Finished episodes waiting in the pool">
          <span className="sb-label">pool</span>
          <span className="mono">{session.poolEpisodes}</span>
        </span>
      ) : null}
      <ActivityItem
        text={session?.activity ? activityText(session.activity) : pendingActivity}
        fraction={session?.activity?.fraction ?? null}
      />
      <span className="sb-spacer" />
      <SessionTail session={session} viewedRunId={viewedRunId} live={live} onBackToLive={onBackToLive} />
    </header>
  );
}
