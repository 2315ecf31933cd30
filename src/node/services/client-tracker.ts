// The worker's clients as the workbench knows them, kept current from the events stream instead
// of polling the listing: joins and leaves, and each episode's start and end counted on its
// client. A snapshot (`GET /swarm/v1/status`: clients with the event sequence number they
// include) seeds it and, now and then, corrects what events do not carry (heartbeats' last-seen
// times, calls and tokens, refused claims); events that arrive while a snapshot is on its way and are newer than
// it are applied again on top of it, so none is lost or counted twice. Pure: no I/O, no clock.
import type { SwarmEvent } from '../../shared/swarm-events';
import type { ClientInfo } from '../../shared/swarm-protocol';

const newClient = (clientId: string, time: number, name?: string): ClientInfo => ({
  clientId,
  ...(name ? { name } : {}),
  active: true,
  agreedSync: false,
  firstSeenAt: time,
  lastSeenAt: time,
  counters: { claimed: 0, ended: 0, aborted: 0, expired: 0, calls: 0, completionTokens: 0, refused: 0 },
  openEpisodes: 0,
});

/** Applies one event to `clients` (in place); true when it changed something. */
export function foldClientEvent(clients: Map<string, ClientInfo>, e: SwarmEvent): boolean {
  const seen = (clientId: string, activity: boolean, name?: string): ClientInfo => {
    let c = clients.get(clientId);
    if (!c) {
      c = newClient(clientId, e.time, name);
      clients.set(clientId, c);
    }
    if (activity) {
      c.active = true;
      c.lastSeenAt = Math.max(c.lastSeenAt, e.time);
    }
    return c;
  };
  const closed = (c: ClientInfo, key: 'ended' | 'aborted' | 'expired'): void => {
    c.counters[key] += 1;
    c.openEpisodes = Math.max(0, c.openEpisodes - 1);
  };
  switch (e.type) {
    case 'client_joined': {
      const c = seen(e.clientId, true, e.name);
      if (e.name) c.name = e.name;
      return true;
    }
    case 'client_left': {
      const c = clients.get(e.clientId);
      if (!c) return false;
      c.active = false;
      c.agreedSync = false;
      return true;
    }
    case 'episode_started': {
      const c = seen(e.clientId, true);
      c.counters.claimed += 1;
      c.openEpisodes += 1;
      return true;
    }
    case 'episode_ended':
      closed(seen(e.clientId, true), 'ended');
      return true;
    case 'episode_aborted':
      closed(seen(e.clientId, false), 'aborted');
      return true;
    case 'episode_expired':
      closed(seen(e.clientId, false), 'expired');
      return true;
    default:
      return false;
  }
}

export class ClientTracker {
  private clients = new Map<string, ClientInfo>();
  /** Events seen while a snapshot is being fetched (null: none is). */
  private pending: SwarmEvent[] | null = null;

  /** A snapshot is being fetched: events from now on are kept to re-apply on top of it. */
  beginSnapshot(): void {
    this.pending = [];
  }

  /** The snapshot arrived: it replaces what is known, then newer events are applied again. */
  applySnapshot(clients: readonly ClientInfo[], eventSeq: number): void {
    const next = new Map(clients.map((c) => [c.clientId, structuredClone(c)]));
    for (const e of this.pending ?? []) if (e.seq > eventSeq) foldClientEvent(next, e);
    this.clients = next;
    this.pending = null;
  }

  /** The snapshot failed: the events already applied stand. */
  abortSnapshot(): void {
    this.pending = null;
  }

  /** Applies an event; true when the client list changed. */
  event(e: SwarmEvent): boolean {
    this.pending?.push(e);
    return foldClientEvent(this.clients, e);
  }

  list(): ClientInfo[] {
    return [...this.clients.values()];
  }
}
