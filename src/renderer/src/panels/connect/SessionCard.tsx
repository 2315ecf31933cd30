// The current session's facts and the Disconnect button; the progress line of a connect in flight.
import type { Session } from '../../../../shared/workbench-api';
import { Field } from './fields';

export function SessionCard({
  session,
  disabled,
  onDisconnect,
}: {
  session: Session;
  disabled: boolean;
  onDisconnect: () => void;
}) {
  return (
    <div className="card session-card">
      <div className="session-grid">
        <Field label="Run" value={session.runId} mono />
        <Field label="Mode" value={session.mode} />
        <Field label="State" value={session.state} />
        <Field label="Worker" value={session.workerUrl} mono />
        <Field label="Model" value={session.model} />
        <Field label="Example" value={session.example ?? '—'} />
        <Field label="Strategy" value={session.strategy ?? '—'} />
        <Field label="Step" value={String(session.step)} mono />
        {session.transport?.sshHost ? (
          <Field label="Via SSH" value={`${session.transport.sshHost} → ${session.transport.remoteUrl}`} mono />
        ) : null}
        {session.transport?.fingerprint256 ? (
          <Field
            label={session.transport.trustedOnFirstUse ? 'Certificate (new: trusted on first use)' : 'Certificate'}
            value={`SHA-256 ${session.transport.fingerprint256}`}
            mono
          />
        ) : null}
      </div>
      <button
        type="button"
        className="btn btn-danger"
        data-testid="disconnect"
        onClick={onDisconnect}
        disabled={disabled}
      >
        Disconnect
      </button>
    </div>
  );
}

export function ProgressCard({ text, fraction }: { text: string; fraction: number | null }) {
  return (
    <div className="card progress-card" role="status">
      <span className="spinner" aria-hidden="true" /> {text}
      {fraction !== null ? (
        <span className="meter">
          <span className="meter-fill" style={{ width: `${fraction * 100}%` }} />
        </span>
      ) : null}
    </div>
  );
}
