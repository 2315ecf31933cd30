// Which rollout replica serves a call (issue #21 §1). Calls with the same affinity key (a task group,
// else an episode) stick to the replica that served the key first while it is healthy, so the prefix
// cache keeps hitting on the episode's growing history and the group's shared prompt; a new key, or one
// whose replica is down, goes to the least loaded healthy replica (ties: the lowest index). The table of
// keys is bounded (least recently used first out). Pure: no timers, no I/O.

export interface ReplicaLoad {
  /** Healthy: started, loaded, synced and not restarting. */
  healthy: boolean;
  /** Generations in flight or waiting at its gate. */
  load: number;
}

export class RoutePolicy {
  private readonly sticky = new Map<string, number>();

  constructor(private readonly maxKeys = 10_000) {}

  /** The replica index for a call with `key`, or null when no replica is healthy. */
  choose(replicas: readonly ReplicaLoad[], key: string | undefined): number | null {
    if (key !== undefined) {
      const held = this.sticky.get(key);
      if (held !== undefined && replicas[held]?.healthy) {
        this.touch(key, held);
        return held;
      }
    }
    const pick = leastLoaded(replicas);
    if (pick !== null && key !== undefined) this.touch(key, pick);
    return pick;
  }

  /** Keys pinned to `index` (a dead replica's keys move on their next call). */
  keysOn(index: number): number {
    let n = 0;
    for (const v of this.sticky.values()) if (v === index) n += 1;
    return n;
  }

  get size(): number {
    return this.sticky.size;
  }

  private touch(key: string, index: number): void {
    this.sticky.delete(key);
    this.sticky.set(key, index);
    if (this.sticky.size > this.maxKeys) {
      const oldest = this.sticky.keys().next().value;
      if (oldest !== undefined) this.sticky.delete(oldest);
    }
  }
}

export function leastLoaded(replicas: readonly ReplicaLoad[]): number | null {
  let best: number | null = null;
  replicas.forEach((r, i) => {
    if (r.healthy && (best === null || r.load < replicas[best]!.load)) best = i;
  });
  return best;
}
