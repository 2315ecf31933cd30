// The client registry: who is connected (liveness by last activity), per-client counters, and
// the sync agreements that strategies C4/C5 wait for. Time comes in as arguments.
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

const zeroCounters = (): Counters => ({ claimed: 0, ended: 0, aborted: 0, expired: 0, calls: 0, completionTokens: 0, refused: 0 });

export class ClientRegistry {
  private readonly clients = new Map<string, Client>();

  constructor(private readonly timeoutMs: number) {}

  /** Records activity; `joined` is true when the client is new or was inactive. */
  seen(clientId: string, now: number, name?: string): { joined: boolean } {
    const c = this.clients.get(clientId);
    if (!c) {
      this.clients.set(clientId, { clientId, active: true, agreedSync: false, firstSeenAt: now, lastSeenAt: now, counters: zeroCounters(), ...(name ? { name } : {}) });
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

  /** Active clients silent for longer than the timeout become inactive; returns their ids. */
  sweep(now: number): string[] {
    const gone: string[] = [];
    for (const c of this.clients.values()) {
      if (c.active && now - c.lastSeenAt > this.timeoutMs) {
        c.active = false;
        c.agreedSync = false;
        gone.push(c.clientId);
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

  list(openEpisodes: (clientId: string) => number): ClientInfo[] {
    return [...this.clients.values()].map((c) => ({
      clientId: c.clientId, ...(c.name ? { name: c.name } : {}), active: c.active, agreedSync: c.agreedSync,
      firstSeenAt: c.firstSeenAt, lastSeenAt: c.lastSeenAt, counters: { ...c.counters }, openEpisodes: openEpisodes(c.clientId),
    }));
  }
}
