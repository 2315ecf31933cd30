// The run's episodes, virtualised (@tanstack/react-virtual) and paged on scroll, so 100,000 rows
// stay fast: only the pages under the viewport are fetched (use-episode-pages.ts). Arrow keys move
// the selection.
import type { KeyboardEvent } from 'react';
import type { EpisodeFilter, EpisodeRow, WorkbenchApi } from '../../../../shared/workbench-api';
import type { EpisodeOrder } from './episode-query';
import { EpisodeListHeader, EpisodeRowView } from './EpisodeRowView';
import { ROW_HEIGHT, useEpisodePages } from './use-episode-pages';

export { ROW_HEIGHT };

export interface EpisodeListProps {
  api: WorkbenchApi;
  runId: string;
  filter: EpisodeFilter;
  order: EpisodeOrder;
  live: boolean;
  /** Changes when a live episode arrives or changes. */
  liveTick: string | null;
  selectedId: string | null;
  onSelect: (row: EpisodeRow) => void;
}

export function EpisodeList(props: EpisodeListProps) {
  const { filter, selectedId, onSelect } = props;
  const { state, error, loading, scroller, virtualizer } = useEpisodePages(props);
  const items = virtualizer.getVirtualItems();
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    let selectedIndex = -1;
    for (const [i, r] of state.rows) if (r.episodeId === selectedId) selectedIndex = i;
    const next = Math.min(state.total - 1, Math.max(0, selectedIndex + (e.key === 'ArrowDown' ? 1 : -1)));
    const row = state.rows.get(next);
    if (row) {
      onSelect(row);
      virtualizer.scrollToIndex(next, { align: 'auto' });
    }
  };
  return (
    <div className="in-list-wrap">
      <div className="in-list-meta">
        <span>
          {state.total.toLocaleString()} episode{state.total === 1 ? '' : 's'}
        </span>
        {loading && <span className="in-muted">loading…</span>}
        {error && (
          <span className="in-error" role="alert">
            {error}
          </span>
        )}
      </div>
      <EpisodeListHeader />
      <div
        className="in-list"
        data-testid="episode-list"
        ref={scroller}
        tabIndex={0}
        onKeyDown={onKeyDown}
        role="grid"
        aria-rowcount={state.total}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = state.rows.get(item.index);
            const style = { transform: `translateY(${item.start}px)`, height: ROW_HEIGHT };
            if (!row)
              return (
                <div key={`p${item.index}`} className="in-row placeholder" style={style}>
                  <span className="in-muted">…</span>
                </div>
              );
            return (
              <EpisodeRowView
                key={row.episodeId}
                row={row}
                selected={row.episodeId === selectedId}
                style={style}
                onSelect={onSelect}
              />
            );
          })}
        </div>
        {state.total === 0 && !loading && !error && (
          <div className="in-empty">No episodes{Object.keys(filter).length > 0 ? ' match the filter' : ' yet'}.</div>
        )}
      </div>
    </div>
  );
}
