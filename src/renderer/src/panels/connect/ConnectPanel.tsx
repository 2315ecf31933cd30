// Connect: launch a local worker (model + example + clients, advanced training settings) or attach
// to a remote one (URL + admin token, optionally running local clients against it); Disconnect.
// The backend's error message is shown as is (`connect-error`).
import type { Session, WorkbenchApi } from '../../../../shared/workbench-api';
import { activityText } from '../../format';
import type { AppStore } from '../../store/store';
import { LocalWorkerForm } from './LocalWorkerForm';
import { RemoteWorkerForm } from './RemoteWorkerForm';
import { ProgressCard, SessionCard } from './SessionCard';
import { useConnectAction, useExamples } from './use-connect';

export interface ConnectPanelProps {
  api: WorkbenchApi;
  store: AppStore;
  session: Session | null;
  /** Whether the transport is up (examples load once it is). */
  online: boolean;
}

export function ConnectPanel({ api, store, session, online }: ConnectPanelProps) {
  const { busy, error, setError, run } = useConnectAction(store);
  const examples = useExamples(api, online, setError);
  const progress = session?.activity ? activityText(session.activity) : busy;
  const disconnect = (): void =>
    run('Disconnecting…', async () => {
      await api.disconnect({});
      return null;
    });
  return (
    <div className="connect">
      <div className="panel-head">
        <h2>Connect</h2>
        <span className="muted">Launch a local trainer worker, or attach to one running elsewhere.</span>
      </div>
      {session ? <SessionCard session={session} disabled={busy !== null} onDisconnect={disconnect} /> : null}
      {progress ? <ProgressCard text={progress} fraction={session?.activity?.fraction ?? null} /> : null}
      {error ? (
        <div className="card error-card" role="alert" data-testid="connect-error">
          {error}
        </div>
      ) : null}
      <div className="connect-forms">
        <LocalWorkerForm
          examples={examples}
          disabled={busy !== null}
          onInvalid={setError}
          onSubmit={(p) => run('Starting local worker…', () => api.connectLocal(p))}
        />
        <RemoteWorkerForm
          examples={examples}
          disabled={busy !== null}
          onInvalid={setError}
          onSubmit={(p) => run('Connecting to remote worker…', () => api.connectRemote(p))}
        />
      </div>
    </div>
  );
}
