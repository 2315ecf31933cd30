// The clients panel's rows: the runner's local clients (process state, pid, code version,
// restarts) merged by client id with the worker's per-client episode counters; clients only the
// worker knows (other machines, the eval player) are listed as remote. Pure.
import type { ClientInfo } from '../../shared/swarm-protocol';
import type { ClientRow } from '../../shared/workbench-api';
import type { ClientStatus } from '../runner/index';

const LOCAL_STATUS: Record<ClientStatus['state'], ClientRow['status']> = {
  starting: 'starting',
  running: 'running',
  stopping: 'restarting',
  backoff: 'restarting',
  crashed: 'crashed',
  exited: 'stopped',
};

const noCounts = { claimed: 0, ended: 0, aborted: 0, expired: 0, openEpisodes: 0 };

function latest(...times: (number | null | undefined)[]): number | null {
  const known = times.filter((t): t is number => typeof t === 'number');
  return known.length > 0 ? Math.max(...known) : null;
}

export function mergeClientRows(local: readonly ClientStatus[], remote: readonly ClientInfo[]): ClientRow[] {
  const byId = new Map(remote.map((c) => [c.clientId, c]));
  const rows: ClientRow[] = local.map((c) => {
    const w = byId.get(c.clientId);
    byId.delete(c.clientId);
    return {
      clientId: c.clientId,
      local: true,
      status: LOCAL_STATUS[c.state],
      pid: c.pid,
      codeVersion: c.codeVersion,
      ...(w
        ? {
            claimed: w.counters.claimed,
            ended: w.counters.ended,
            aborted: w.counters.aborted,
            expired: w.counters.expired,
            openEpisodes: w.openEpisodes,
          }
        : noCounts),
      restarts: c.restarts,
      lastActivityAt: latest(c.lastLogAt, w?.lastSeenAt),
    };
  });
  for (const w of byId.values()) {
    rows.push({
      clientId: w.clientId,
      local: false,
      status: w.active ? 'connected' : 'gone',
      pid: null,
      codeVersion: null,
      claimed: w.counters.claimed,
      ended: w.counters.ended,
      aborted: w.counters.aborted,
      expired: w.counters.expired,
      openEpisodes: w.openEpisodes,
      restarts: 0,
      lastActivityAt: w.lastSeenAt,
    });
  }
  return rows;
}
