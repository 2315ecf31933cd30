// The run's episodes, virtualised (@tanstack/react-virtual) and paged on scroll, so 100,000 rows
// stay fast: only the pages under the viewport are fetched. A live run refreshes the first page
// when an episode arrives, keeping the rows the user is looking at in place.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { EpisodeFilter, EpisodeRow, WorkbenchApi } from '../../../../shared/workbench-api';
import { formatClock, formatDuration, formatReward, formatSuccess, pagesForRange, pagesPresent, pruneRows, queryKey, scrollCompensation, shiftRows, storePage, type EpisodeOrder } from './episode-query';

export const ROW_HEIGHT = 24;
const PAGE_SIZE = 200;
/** Rows kept in memory at most (pages far from the viewport are dropped and refetched when seen). */
const MAX_CACHED_ROWS = 10_000;
const LIVE_REFRESH_MS = 500;

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

interface ListState {
  key: string;
  total: number;
  rows: Map<number, EpisodeRow>;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function EpisodeList(props: EpisodeListProps) {
  const { api, runId, filter, order, live, liveTick, selectedId, onSelect } = props;
  const key = queryKey(runId, filter, order);
  const [state, setState] = useState<ListState>({ key, total: 0, rows: new Map() });
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  // Pages fetched (or in flight) for the current generation; a generation ends when offsets shift.
  const pages = useRef(new Set<number>());
  const generation = useRef(0);
  const stateRef = useRef(state);
  // The query as of the last render; callbacks read it so they change only when the key does.
  const query = useRef({ runId, filter, order });
  useEffect(() => {
    stateRef.current = state;
    query.current = { runId, filter, order };
  });

  const fetchPage = useCallback(
    (page: number) => {
      if (pages.current.has(page)) return;
      pages.current.add(page);
      const gen = generation.current;
      const offset = page * PAGE_SIZE;
      setLoading(true);
      api.episodes({ ...query.current, offset, limit: PAGE_SIZE }).then(
        (result) => {
          setLoading(false);
          if (gen !== generation.current) return;
          setError(null);
          setState((s) => {
            if (s.key !== key) return s;
            const rows = pruneRows(storePage(s.rows, result.offset, result.rows), result.offset, MAX_CACHED_ROWS);
            if (rows.size < s.rows.size + result.rows.length) pages.current = pagesPresent(rows, pages.current, PAGE_SIZE);
            return { key, total: result.total, rows };
          });
        },
        (err: unknown) => {
          setLoading(false);
          if (gen !== generation.current) return;
          pages.current.delete(page);
          setError(message(err));
        },
      );
    },
    [api, key],
  );

  // A new query: start over at the top.
  useEffect(() => {
    generation.current += 1;
    pages.current = new Set();
    setState({ key, total: 0, rows: new Map() });
    if (scroller.current) scroller.current.scrollTop = 0;
    fetchPage(0);
  }, [key, fetchPage]);

  const virtualizer = useVirtualizer({ count: state.key === key ? state.total : 0, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 30 });
  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items.at(-1)?.index ?? -1;

  // Fetch the pages under the viewport.
  useEffect(() => {
    for (const p of pagesForRange(firstIndex, lastIndex, PAGE_SIZE, state.total)) fetchPage(p);
  }, [firstIndex, lastIndex, state.total, fetchPage]);

  // Live: refresh the first page (throttled); rows added on top push the cached ones down.
  const lastRefresh = useRef(0);
  useEffect(() => {
    if (!live || liveTick === null) return;
    const wait = Math.max(0, lastRefresh.current + LIVE_REFRESH_MS - Date.now());
    const timer = setTimeout(() => {
      lastRefresh.current = Date.now();
      const gen = generation.current;
      api.episodes({ ...query.current, offset: 0, limit: PAGE_SIZE }).then(
        (result) => {
          if (gen !== generation.current || stateRef.current.key !== key) return;
          const before = stateRef.current;
          const added = order === 'newest' ? Math.max(0, result.total - before.total) : 0;
          const shifted = added > 0 || result.total !== before.total;
          if (shifted) {
            // Offsets moved: cached pages other than the first are stale and get refetched as seen.
            generation.current += 1;
            pages.current = new Set([0]);
          }
          const base = order === 'newest' ? shiftRows(before.rows, added, result.total) : shifted ? new Map<number, EpisodeRow>() : before.rows;
          setState({ key, total: result.total, rows: storePage(base, 0, result.rows) });
          const el = scroller.current;
          const comp = el ? scrollCompensation(order, el.scrollTop, added, ROW_HEIGHT) : 0;
          if (el && comp > 0) requestAnimationFrame(() => (el.scrollTop += comp));
        },
        (err: unknown) => setError(message(err)),
      );
    }, wait);
    return () => clearTimeout(timer);
  }, [live, liveTick, api, order, key]);

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
        <span>{state.total.toLocaleString()} episode{state.total === 1 ? '' : 's'}</span>
        {loading && <span className="in-muted">loading…</span>}
        {error && <span className="in-error" role="alert">{error}</span>}
      </div>
      <div className="in-row in-head" role="row">
        <span>time</span>
        <span>task</span>
        <span className="num">reward</span>
        <span>ok</span>
        <span>client</span>
        <span>code</span>
        <span className="num">calls</span>
        <span>status</span>
        <span className="num">took</span>
      </div>
      <div className="in-list" data-testid="episode-list" ref={scroller} tabIndex={0} onKeyDown={onKeyDown} role="grid" aria-rowcount={state.total}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = state.rows.get(item.index);
            const style = { transform: `translateY(${item.start}px)`, height: ROW_HEIGHT };
            if (!row) {
              return <div key={`p${item.index}`} className="in-row placeholder" style={style}><span className="in-muted">…</span></div>;
            }
            return (
              <div
                key={row.episodeId}
                className={`in-row${row.episodeId === selectedId ? ' selected' : ''}${row.kind === 'eval' ? ' eval' : ''}`}
                style={style}
                role="row"
                aria-selected={row.episodeId === selectedId}
                data-testid="episode-row"
                data-episode-id={row.episodeId}
                onClick={() => onSelect(row)}
                title={row.episodeId}
              >
                <span className="in-muted">{formatClock(row.createdAt)}</span>
                <span className="ellipsis">{row.taskId ?? '—'}</span>
                <span className={`num${row.reward !== null && row.reward > 0 ? ' pos' : ''}`}>{formatReward(row.reward)}</span>
                <span className={row.success ? 'ok' : row.success === false ? 'bad' : ''}>{formatSuccess(row.success)}</span>
                <span className="ellipsis">{row.clientId}</span>
                <code className="ellipsis" title={row.codeVersion ?? undefined}>{row.codeVersion ? row.codeVersion.slice(0, 8) : '—'}</code>
                <span className="num">{row.calls}</span>
                <span className={`in-status ${row.status}`}>{row.kind === 'eval' ? `${row.status} · eval` : row.status}</span>
                <span className="num in-muted">{formatDuration(row.createdAt, row.finishedAt)}</span>
              </div>
            );
          })}
        </div>
        {state.total === 0 && !loading && !error && <div className="in-empty">No episodes{Object.keys(filter).length > 0 ? ' match the filter' : ' yet'}.</div>}
      </div>
    </div>
  );
}
