// After an episode finishes, fetches its summary, timelines and merged samples from the worker
// (a few at a time) and hands them on for storing; an episode the worker no longer has is skipped.
import { z } from 'zod';
import { EpisodeSummarySchema, type EpisodeSummary } from '../../shared/swarm-protocol';
import { MergedSampleSchema, MergeStatsSchema, TimelineSchema, type MergedSample, type MergeStats, type Timeline } from '../../shared/timeline';
import { WorkbenchError } from '../../shared/workbench-api';
import type { EpisodeInput } from '../store/types';
import type { WorkerHttp } from './worker-http';

export const EpisodeDetailAnswerSchema = z.object({ episode: EpisodeSummarySchema, result: z.unknown(), timelines: z.array(TimelineSchema) });
export const MergedAnswerSchema = z.object({ samples: z.array(MergedSampleSchema), stats: MergeStatsSchema });
/** The part of an episode's `end` result the workbench keeps besides reward/success: its metrics. */
const EndMetricsSchema = z.object({ metrics: z.record(z.string(), z.number()).optional() }).nullable().catch(null);

export interface FetchedEpisode {
  row: EpisodeInput;
  timelines: Timeline[];
  merged: { samples: MergedSample[]; stats: MergeStats } | null;
  /** What the client reported as `metrics` at `end` (e.g. rm_score, verifiable_reward); null: none. */
  metrics: Record<string, number> | null;
}

/** The episode row as the worker's summary tells it. */
export function rowFromSummary(s: EpisodeSummary): EpisodeInput {
  return {
    episodeId: s.episodeId, kind: s.kind, status: s.status, taskId: s.taskId ?? null, clientId: s.clientId, codeVersion: s.codeVersion ?? null,
    reward: s.reward ?? null, success: s.success ?? null, calls: s.calls, createdAt: s.createdAt, finishedAt: s.finishedAt ?? null,
  };
}

export class EpisodeFetcher {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private active = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly http: WorkerHttp,
    private readonly onFetched: (e: FetchedEpisode) => void,
    private readonly onError: (message: string) => void,
    private readonly concurrency = 2,
    private readonly maxQueued = 2000,
  ) {}

  add(episodeId: string): void {
    if (this.closed || this.queued.has(episodeId)) return;
    if (this.queue.length >= this.maxQueued) {
      // Far behind (a replay of a long run): the oldest pending fetch is given up.
      this.queued.delete(this.queue.shift()!);
    }
    this.queue.push(episodeId);
    this.queued.add(episodeId);
    this.pump();
  }

  /** Resolves when nothing is queued or in flight. */
  idle(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.queued.clear();
    this.settle();
  }

  private pump(): void {
    while (!this.closed && this.active < this.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.queued.delete(id);
      this.active++;
      void this.fetchOne(id).finally(() => {
        this.active--;
        this.pump();
        this.settle();
      });
    }
  }

  private settle(): void {
    if (this.active > 0 || this.queue.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async fetchOne(episodeId: string): Promise<void> {
    const path = `/swarm/v1/episodes/${encodeURIComponent(episodeId)}`;
    try {
      const detail = await this.http.get(path, EpisodeDetailAnswerSchema, 30_000);
      const merged = detail.timelines.length > 0 ? await this.http.get(`${path}/merged`, MergedAnswerSchema, 30_000) : null;
      const metrics = EndMetricsSchema.parse(detail.result)?.metrics ?? null;
      if (!this.closed) this.onFetched({ row: rowFromSummary(detail.episode), timelines: detail.timelines, merged, metrics });
    } catch (err) {
      if (err instanceof WorkbenchError && err.code === 'not_found') return; // the worker forgot it: nothing to store
      if (!this.closed) this.onError(`episode ${episodeId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
