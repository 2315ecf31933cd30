// The client registry: who is connected (liveness by last activity), per-client counters, and
// the sync agreements that strategies C4/C5 wait for. A client silent for the timeout becomes
// inactive; an inactive one silent for the retention period (default: an hour, at least the
// timeout) is forgotten, so the registry stays bounded by recent clients. Time comes in as
// arguments.
import type { ClientInfo } from '../../../src/shared/swarm-protocol';

type Counters = ClientInfo['counters'];

interface Client {
  clientId: string;
  name?: string;
  active: boolean;
  agreedSync: boolean;
  firstSeenAt: number;
  lastSeenAt: number;
  counters: Counters;
}

const zeroCounters = (): Counters => ({
  claimed: 0,
  ended: 0,
  aborted: 0,
  expired: 0,
  calls: 0,
  completionTokens: 0,
  refused: 0,
});

export class ClientRegistry {
  private readonly clients = new Map<string, Client>();

  constructor(
    private readonly timeoutMs: number,
    private readonly retentionMs = Math.max(CLIENT_RETENTION_MS, timeoutMs),
  ) {}

  get size(): number {
    return this.clients.size;
  }

  /** Records activity; `joined` is true when the client is new or was inactive. */
  seen(clientId: string, now: number, name?: string): { joined: boolean } {
    const c = this.clients.get(clientId);
    if (!c) {
      this.clients.set(clientId, {
        clientId,
        active: true,
        agreedSync: false,
        firstSeenAt: now,
        lastSeenAt: now,
        counters: zeroCounters(),
        ...(name ? { name } : {}),
      });
      return { joined: true };
    }
    c.lastSeenAt = now;
    if (name) c.name = name;
    const joined = !c.active;
    c.active = true;
    return { joined };
  }

  has(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  count(clientId: string, key: keyof Counters, n = 1): void {
    const c = this.clients.get(clientId);
    if (c) c.counters[key] += n;
  }

  agree(clientId: string): void {
    const c = this.clients.get(clientId);
    if (c) c.agreedSync = true;
  }

  clearAgreements(): void {
    for (const c of this.clients.values()) c.agreedSync = false;
  }

  /** Marks a client gone; true when it was active. */
  leave(clientId: string): boolean {
    const c = this.clients.get(clientId);
    if (!c || !c.active) return false;
    c.active = false;
    c.agreedSync = false;
    return true;
  }

  /**
   * Active clients silent for longer than the timeout become inactive (their ids are returned);
   * inactive clients silent for longer than the retention period are forgotten.
   */
  sweep(now: number): string[] {
    const gone: string[] = [];
    for (const c of this.clients.values()) {
      if (c.active && now - c.lastSeenAt > this.timeoutMs) {
        c.active = false;
        c.agreedSync = false;
        gone.push(c.clientId);
      } else if (!c.active && now - c.lastSeenAt > this.retentionMs) {
        this.clients.delete(c.clientId);
      }
    }
    return gone;
  }

  activeIds(): string[] {
    return [...this.clients.values()].filter((c) => c.active).map((c) => c.clientId);
  }

  agreedIds(): string[] {
    return [...this.clients.values()].filter((c) => c.active && c.agreedSync).map((c) => c.clientId);
  }

  /** Every known client; `openEpisodes` maps a client id to its open episode count (see openCountsByClient). */
  list(openEpisodes: ReadonlyMap<string, number>): ClientInfo[] {
    return [...this.clients.values()].map((c) => ({
      clientId: c.clientId,
      ...(c.name ? { name: c.name } : {}),
      active: c.active,
      agreedSync: c.agreedSync,
      firstSeenAt: c.firstSeenAt,
      lastSeenAt: c.lastSeenAt,
      counters: { ...c.counters },
      openEpisodes: openEpisodes.get(c.clientId) ?? 0,
    }));
  }
}

/** An inactive client is forgotten after this long without activity (at least the client timeout). */
export const CLIENT_RETENTION_MS = 3_600_000;

/** Open episodes per client, in one pass (the listing stays linear in clients + open episodes). */
export function openCountsByClient(open: Iterable<{ clientId: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ep of open) counts.set(ep.clientId, (counts.get(ep.clientId) ?? 0) + 1);
  return counts;
}
