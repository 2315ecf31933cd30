// The log view of one client: lines fetched with `api.logs`, then the live `log` events of the same
// source that are newer than the last fetched line. Pure.
import { sameSource, type ClientRow, type LogLine, type LogSource } from '../../../../shared/workbench-api';

export function clientLogLines(
  fetched: readonly LogLine[],
  live: readonly LogLine[],
  source: LogSource,
  cap = 5000,
): LogLine[] {
  const lastT = fetched.at(-1)?.t ?? -Infinity;
  const tail = live.filter((l) => sameSource(l.source, source) && l.t > lastT);
  const all = tail.length ? [...fetched, ...tail] : fetched.slice();
  return all.length > cap ? all.slice(all.length - cap) : all;
}

const STATUS_ORDER: Record<ClientRow['status'], number> = {
  running: 0,
  connected: 1,
  starting: 2,
  restarting: 3,
  crashed: 4,
  stopped: 5,
  gone: 6,
};

/** Local clients first, then by liveliness, then by id. */
export function sortClients(rows: readonly ClientRow[]): ClientRow[] {
  return [...rows].sort(
    (a, b) =>
      Number(b.local) - Number(a.local) ||
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      a.clientId.localeCompare(b.clientId),
  );
}
