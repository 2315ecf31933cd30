// The log of one source (the worker or a local client): its recent lines fetched once, then the
// live `log` events of the same source, virtualised, following the end unless told not to.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { LogLine, LogSource, WorkbenchApi } from '../../../../shared/workbench-api';
import { clockTime } from '../../format';
import { errorMessage } from '../../store/toasts';
import { clientLogLines } from './client-logs';

export const sourceLabel = (s: LogSource): string => (s.kind === 'worker' ? 'worker' : s.clientId);

function useFetchedLogs(api: WorkbenchApi, source: LogSource): { fetched: LogLine[]; error: string | null } {
  const [fetched, setFetched] = useState<LogLine[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setFetched([]);
    setError(null);
    api.logs({ source, limit: 2000 }).then(
      (r) => live && setFetched(r.lines),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [api, source]);
  return { fetched, error };
}

export function LogView({
  api,
  source,
  active,
  liveLogs,
  onClose,
}: {
  api: WorkbenchApi;
  source: LogSource;
  active: boolean;
  liveLogs: readonly LogLine[];
  onClose: () => void;
}) {
  const { fetched, error } = useFetchedLogs(api, source);
  const [follow, setFollow] = useState(true);
  const lines = useMemo(() => clientLogLines(fetched, liveLogs, source), [fetched, liveLogs, source]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 18,
    overscan: 20,
  });
  useEffect(() => {
    if (follow && active && lines.length > 0) v.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [follow, active, lines.length, v]);
  return (
    <div className="card logview" data-testid="client-log">
      <div className="chart-head">
        <span className="chart-title">
          Log — <span className="mono">{sourceLabel(source)}</span>
        </span>
        <span className="muted">{lines.length} lines</span>
        <span className="sb-spacer" />
        <label className="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> follow
        </label>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      {error ? (
        <div className="error-card" role="alert">
          {error}
        </div>
      ) : null}
      <div className="log-body" ref={scrollRef}>
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((it) => {
            const l = lines[it.index]!;
            return (
              <div
                key={it.key}
                className={`log-line log-${l.stream}`}
                style={{ transform: `translateY(${it.start}px)` }}
              >
                <span className="log-t">{clockTime(l.t)}</span>
                {l.line}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
