// One row of the episode list (time, task, role, reward, success, client, code version, calls, status,
// duration), or its placeholder while its page loads; and the list's header.
import type { CSSProperties } from 'react';
import type { EpisodeRow } from '../../../../shared/workbench-api';
import { formatClock, formatDuration, formatReward, formatSuccess } from './episode-query';

export function EpisodeListHeader() {
  return (
    <div className="in-row in-head" role="row">
      <span>time</span>
      <span>task</span>
      <span>role</span>
      <span className="num">reward</span>
      <span>ok</span>
      <span>client</span>
      <span>code</span>
      <span className="num">calls</span>
      <span>status</span>
      <span className="num">took</span>
    </div>
  );
}

export function EpisodeRowView({
  row,
  selected,
  style,
  onSelect,
}: {
  row: EpisodeRow;
  selected: boolean;
  style: CSSProperties;
  onSelect: (row: EpisodeRow) => void;
}) {
  return (
    <div
      className={`in-row${selected ? ' selected' : ''}${row.kind === 'eval' ? ' eval' : ''}`}
      style={style}
      role="row"
      aria-selected={selected}
      data-testid="episode-row"
      data-episode-id={row.episodeId}
      onClick={() => onSelect(row)}
      title={row.episodeId}
    >
      <span className="in-muted">{formatClock(row.createdAt)}</span>
      <span className="ellipsis">{row.taskId ?? '—'}</span>
      <span className="ellipsis in-muted">{row.role ?? '—'}</span>
      <span className={`num${row.reward !== null && row.reward > 0 ? ' pos' : ''}`}>{formatReward(row.reward)}</span>
      <span className={row.success ? 'ok' : row.success === false ? 'bad' : ''}>{formatSuccess(row.success)}</span>
      <span className="ellipsis">{row.clientId}</span>
      <code className="ellipsis" title={row.codeVersion ?? undefined}>
        {row.codeVersion ? row.codeVersion.slice(0, 8) : '—'}
      </code>
      <span className="num">{row.calls}</span>
      <span className={`in-status ${row.status}`}>{row.kind === 'eval' ? `${row.status} · eval` : row.status}</span>
      <span className="num in-muted">{formatDuration(row.createdAt, row.finishedAt)}</span>
    </div>
  );
}
