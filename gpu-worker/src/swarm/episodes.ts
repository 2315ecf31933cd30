// The registry of claimed episodes: status, inactivity expiry, in-flight calls and the recorded
// timelines. Finished (ended, aborted, expired) episodes stay inspectable, the most recent
// `retainFinished` of them. Time comes in as arguments.
import type { EpisodeKind, EpisodeStatus, EpisodeSummary } from '../../../src/shared/swarm-protocol';
import type { Timeline } from '../../../src/shared/timeline/index';

export interface EpisodeResult {
  taskId: string;
  reward: number;
  success?: boolean;
  metrics?: Record<string, number>;
}

export interface Episode {
  id: string;
  clientId: string;
  kind: EpisodeKind;
  taskId?: string;
  codeVersion?: string;
  /** The role it plays when one model plays several (the claim's `role`). */
  role?: string;
  timeoutMs: number;
  createdAt: number;
  lastActivityAt: number;
  status: EpisodeStatus;
  finishedAt?: number;
  reason?: string;
  result?: EpisodeResult;
  calls: Timeline[];
  inFlight: number;
  nextCallIndex: number;
  completionTokens: number;
  malformedToolCalls: number;
  idleWaiters: (() => void)[];
}

/** Open, no call in flight, and idle for longer than its timeout. */
export const isExpired = (
  ep: Pick<Episode, 'status' | 'inFlight' | 'lastActivityAt' | 'timeoutMs'>,
  now: number,
): boolean => ep.status === 'open' && ep.inFlight === 0 && now - ep.lastActivityAt > ep.timeoutMs;

export function summarize(ep: Episode): EpisodeSummary {
  return {
    episodeId: ep.id,
    clientId: ep.clientId,
    kind: ep.kind,
    status: ep.status,
    ...((ep.result?.taskId ?? ep.taskId) ? { taskId: ep.result?.taskId ?? ep.taskId } : {}),
    ...(ep.codeVersion !== undefined ? { codeVersion: ep.codeVersion } : {}),
    ...(ep.role !== undefined ? { role: ep.role } : {}),
    ...(ep.result ? { reward: ep.result.reward } : {}),
    ...(ep.result?.success !== undefined ? { success: ep.result.success } : {}),
    ...(ep.reason ? { reason: ep.reason } : {}),
    calls: ep.calls.length,
    completionTokens: ep.completionTokens,
    malformedToolCalls: ep.malformedToolCalls,
    createdAt: ep.createdAt,
    lastActivityAt: ep.lastActivityAt,
    ...(ep.finishedAt !== undefined ? { finishedAt: ep.finishedAt } : {}),
    weightVersions: [...new Set(ep.calls.map((c) => c.weightVersion))].sort((a, b) => a - b),
  };
}

export class EpisodeRegistry {
  private readonly open = new Map<string, Episode>();
  private readonly finished = new Map<string, Episode>();

  constructor(private readonly retainFinished = 2000) {}

  create(init: {
    id: string;
    clientId: string;
    kind: EpisodeKind;
    taskId?: string;
    codeVersion?: string;
    role?: string;
    timeoutMs: number;
    now: number;
  }): Episode {
    const ep: Episode = {
      id: init.id,
      clientId: init.clientId,
      kind: init.kind,
      timeoutMs: init.timeoutMs,
      createdAt: init.now,
      lastActivityAt: init.now,
      status: 'open',
      calls: [],
      inFlight: 0,
      nextCallIndex: 0,
      completionTokens: 0,
      malformedToolCalls: 0,
      idleWaiters: [],
      ...(init.taskId !== undefined ? { taskId: init.taskId } : {}),
      ...(init.codeVersion !== undefined ? { codeVersion: init.codeVersion } : {}),
      ...(init.role !== undefined ? { role: init.role } : {}),
    };
    this.open.set(ep.id, ep);
    return ep;
  }

  get(id: string): Episode | undefined {
    return this.open.get(id) ?? this.finished.get(id);
  }

  get openCount(): number {
    return this.open.size;
  }

  openEpisodes(): Episode[] {
    return [...this.open.values()];
  }

  /** Starts a call: counts it in flight and returns its index in the episode. */
  beginCall(ep: Episode, now: number): number {
    ep.inFlight += 1;
    ep.lastActivityAt = now;
    return ep.nextCallIndex++;
  }

  endCall(ep: Episode, now: number, call?: Timeline, malformed = 0): void {
    if (call) {
      ep.calls.push(call);
      ep.completionTokens += call.outputIds.length;
      ep.malformedToolCalls += malformed;
    }
    ep.inFlight = Math.max(0, ep.inFlight - 1);
    ep.lastActivityAt = now;
    if (ep.inFlight === 0) {
      const waiters = ep.idleWaiters;
      ep.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** An open episode starts ending: no new calls; its result becomes durable next. */
  beginEnd(ep: Episode): void {
    ep.status = 'ending';
  }

  /** Ending failed (the pool could not take it): the episode is open again. */
  reopen(ep: Episode): void {
    if (ep.status === 'ending') ep.status = 'open';
  }

  /** Resolves when the episode has no call in flight. */
  whenIdle(ep: Episode): Promise<void> {
    if (ep.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => ep.idleWaiters.push(resolve));
  }

  finish(
    ep: Episode,
    status: 'ended' | 'aborted' | 'expired',
    now: number,
    extra: { reason?: string; result?: EpisodeResult } = {},
  ): void {
    ep.status = status;
    ep.finishedAt = now;
    if (extra.reason !== undefined) ep.reason = extra.reason;
    if (extra.result !== undefined) ep.result = extra.result;
    this.open.delete(ep.id);
    this.finished.set(ep.id, ep);
    if (this.finished.size > this.retainFinished) {
      const oldest = this.finished.keys().next().value;
      if (oldest !== undefined) this.finished.delete(oldest);
    }
  }

  expired(now: number): Episode[] {
    return [...this.open.values()].filter((ep) => isExpired(ep, now));
  }

  /** Most recent first. */
  list(filter: { status?: EpisodeStatus; clientId?: string; limit?: number } = {}): Episode[] {
    const all = [...this.open.values(), ...this.finished.values()]
      .filter(
        (ep) =>
          (filter.status === undefined || ep.status === filter.status) &&
          (filter.clientId === undefined || ep.clientId === filter.clientId),
      )
      .sort((a, b) => b.createdAt - a.createdAt);
    return all.slice(0, filter.limit ?? 100);
  }
}
