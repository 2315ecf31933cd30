// The episode list's data: pages of the query fetched as they come under the viewport (a bounded
// cache of rows), a fresh start on a new query, and — for a live run — the first page refreshed
// (throttled) when an episode arrives, keeping the rows the user is looking at in place.
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { EpisodeFilter, EpisodeRow, WorkbenchApi } from '../../../../shared/workbench-api';
import {
  pagesForRange,
  pagesPresent,
  pruneRows,
  queryKey,
  scrollCompensation,
  shiftRows,
  storePage,
  type EpisodeOrder,
} from './episode-query';

export const ROW_HEIGHT = 24;
const PAGE_SIZE = 200;
/** Rows kept in memory at most (pages far from the viewport are dropped and refetched when seen). */
const MAX_CACHED_ROWS = 10_000;
const LIVE_REFRESH_MS = 500;

export interface ListState {
  key: string;
  total: number;
  rows: Map<number, EpisodeRow>;
}

export interface EpisodePages {
  state: ListState;
  error: string | null;
  loading: boolean;
  scroller: RefObject<HTMLDivElement | null>;
  virtualizer: Virtualizer<HTMLDivElement, Element>;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export interface PagesQuery {
  api: WorkbenchApi;
  runId: string;
  filter: EpisodeFilter;
  order: EpisodeOrder;
  live: boolean;
  /** Changes when a live episode arrives or changes. */
  liveTick: string | null;
}

export function useEpisodePages({ api, runId, filter, order, live, liveTick }: PagesQuery): EpisodePages {
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
      setLoading(true);
      api.episodes({ ...query.current, offset: page * PAGE_SIZE, limit: PAGE_SIZE }).then(
        (result) => {
          setLoading(false);
          if (gen !== generation.current) return;
          setError(null);
          setState((s) => {
            if (s.key !== key) return s;
            const rows = pruneRows(storePage(s.rows, result.offset, result.rows), result.offset, MAX_CACHED_ROWS);
            if (rows.size < s.rows.size + result.rows.length)
              pages.current = pagesPresent(rows, pages.current, PAGE_SIZE);
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

  const virtualizer = useVirtualizer({
    count: state.key === key ? state.total : 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 30,
  });
  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items.at(-1)?.index ?? -1;
  // Fetch the pages under the viewport.
  useEffect(() => {
    for (const p of pagesForRange(firstIndex, lastIndex, PAGE_SIZE, state.total)) fetchPage(p);
  }, [firstIndex, lastIndex, state.total, fetchPage]);

  useLiveRefresh({ api, live, liveTick, order, key, query, stateRef, generation, pages, scroller, setState, setError });
  return { state, error, loading, scroller, virtualizer };
}

interface LiveRefresh {
  api: WorkbenchApi;
  live: boolean;
  liveTick: string | null;
  order: EpisodeOrder;
  key: string;
  query: RefObject<{ runId: string; filter: EpisodeFilter; order: EpisodeOrder }>;
  stateRef: RefObject<ListState>;
  generation: RefObject<number>;
  pages: RefObject<Set<number>>;
  scroller: RefObject<HTMLDivElement | null>;
  setState: (s: ListState) => void;
  setError: (e: string) => void;
}

/** Live: refresh the first page (throttled); rows added on top push the cached ones down. */
function useLiveRefresh(r: LiveRefresh): void {
  const lastRefresh = useRef(0);
  const { api, live, liveTick, order, key } = r;
  useEffect(() => {
    if (!live || liveTick === null) return;
    const wait = Math.max(0, lastRefresh.current + LIVE_REFRESH_MS - Date.now());
    const timer = setTimeout(() => {
      lastRefresh.current = Date.now();
      const gen = r.generation.current;
      api.episodes({ ...r.query.current, offset: 0, limit: PAGE_SIZE }).then(
        (result) => {
          if (gen !== r.generation.current || r.stateRef.current.key !== key) return;
          const before = r.stateRef.current;
          const added = order === 'newest' ? Math.max(0, result.total - before.total) : 0;
          const shifted = added > 0 || result.total !== before.total;
          if (shifted) {
            // Offsets moved: cached pages other than the first are stale and get refetched as seen.
            r.generation.current += 1;
            r.pages.current = new Set([0]);
          }
          const base =
            order === 'newest'
              ? shiftRows(before.rows, added, result.total)
              : shifted
                ? new Map<number, EpisodeRow>()
                : before.rows;
          r.setState({ key, total: result.total, rows: storePage(base, 0, result.rows) });
          const el = r.scroller.current;
          const comp = el ? scrollCompensation(order, el.scrollTop, added, ROW_HEIGHT) : 0;
          if (el && comp > 0) requestAnimationFrame(() => (el.scrollTop += comp));
        },
        (err: unknown) => r.setError(message(err)),
      );
    }, wait);
    return () => clearTimeout(timer);
    // The refs and setters are stable; the effect runs again when the tick, the query or the order change.
  }, [live, liveTick, api, order, key]);
}
