// One row of the clients table: id, kind, status, code version, episode counts, restarts, last
// activity, and the restart/stop/start buttons of a local client.
import type { ClientRow } from '../../../../shared/workbench-api';
import { shortVersion } from '../../charts/series';
import { relativeTime } from '../../format';

export type ClientAction = 'restart' | 'stop' | 'start';
const ACTION_LABELS: Record<ClientAction, string> = { restart: 'Restart', stop: 'Stop', start: 'Start' };

/** Restart always; Start for a stopped or crashed client, Stop otherwise. */
export function localActions(status: ClientRow['status']): ClientAction[] {
  return ['restart', status === 'stopped' || status === 'crashed' ? 'start' : 'stop'];
}

export interface ClientRowViewProps {
  client: ClientRow;
  now: number;
  selected: boolean;
  busy: boolean;
  onSelect: () => void;
  onAction: (action: ClientAction) => void;
}

export function ClientRowView({ client: c, now, selected, busy, onSelect, onAction }: ClientRowViewProps) {
  return (
    <div
      className={`vtable-row${selected ? ' selected' : ''}`}
      role="row"
      data-testid="client-row"
      data-client-id={c.clientId}
      data-code-version={c.codeVersion ?? ''}
      data-status={c.status}
      onClick={onSelect}
    >
      <span className="mono ellipsis" title={c.pid !== null ? `${c.clientId} (pid ${c.pid})` : c.clientId}>
        {c.clientId}
      </span>
      <span className="muted">{c.local ? 'local' : 'remote'}</span>
      <span>
        <span className={`status status-${c.status}`}>{c.status}</span>
      </span>
      <span className="mono" title={c.codeVersion ?? ''}>
        {shortVersion(c.codeVersion)}
      </span>
      <span className="num mono">{c.ended}</span>
      <span className={`num mono${c.aborted ? ' warn' : ''}`}>{c.aborted}</span>
      <span className={`num mono${c.expired ? ' warn' : ''}`}>{c.expired}</span>
      <span className="num mono">{c.openEpisodes}</span>
      <span className={`num mono${c.restarts ? ' warn' : ''}`}>{c.restarts}</span>
      <span className="muted">{relativeTime(now, c.lastActivityAt)}</span>
      <span className="row-actions">
        {c.local
          ? localActions(c.status).map((action) => (
              <button
                key={action}
                type="button"
                className="btn btn-small"
                data-testid={`client-${action}`}
                disabled={busy}
                onClick={(e) => {
                  e.stopPropagation();
                  onAction(action);
                }}
              >
                {ACTION_LABELS[action]}
              </button>
            ))
          : null}
      </span>
    </div>
  );
}
