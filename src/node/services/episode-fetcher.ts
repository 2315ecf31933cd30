// After an episode finishes, fetches its summary, timelines and merged samples from the worker
// (a preview unless it was trained already), and after a step the samples it trained of each of
// its episodes; a few at a time, handed on for storing. An episode the worker no longer has is skipped.
import { z } from 'zod';
import type { EpisodeSummary } from '../../shared/swarm-protocol';
import type { Timeline } from '../../shared/timeline';
import { WorkbenchError } from '../../shared/workbench-api';
import type { EpisodeInput, MergedEpisode } from '../store/types';
import type { WorkerClient } from '../worker-client';

/** The part of an episode's `end` result the workbench keeps besides reward/success: its metrics. */
const EndMetricsSchema = z
  .object({ metrics: z.record(z.string(), z.number()).optional() })
  .nullable()
  .catch(null);

export interface FetchedEpisode {
  row: EpisodeInput;
  timelines: Timeline[];
  merged: MergedEpisode | null;
  /** What the client reported as `metrics` at `end` (e.g. rm_score, verifiable_reward); null: none. */
  metrics: Record<string, number> | null;
}

/** What an update trained of an episode (fetched after the step that names it). */
export interface FetchedSamples {
  episodeId: string;
  merged: MergedEpisode;
}

type Job = { what: 'episode' | 'samples'; episodeId: string };
const jobKey = (j: Job): string => `${j.what}:${j.episodeId}`;

/** The episode row as the worker's summary tells it. */
export function rowFromSummary(s: EpisodeSummary): EpisodeInput {
  return {
    episodeId: s.episodeId,
    kind: s.kind,
    status: s.status,
    taskId: s.taskId ?? null,
    clientId: s.clientId,
    codeVersion: s.codeVersion ?? null,
    role: s.role ?? null,
    reward: s.reward ?? null,
    success: s.success ?? null,
    calls: s.calls,
    createdAt: s.createdAt,
    finishedAt: s.finishedAt ?? null,
  };
}

export class EpisodeFetcher {
  private readonly queue: Job[] = [];
  private readonly queued = new Set<string>();
  private active = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly http: WorkerClient,
    private readonly onFetched: (e: FetchedEpisode) => void,
    private readonly onSamples: (s: FetchedSamples) => void,
    private readonly onError: (message: string) => void,
    private readonly concurrency = 2,
    private readonly maxQueued = 2000,
  ) {}

  /** A finished episode: its summary, timelines and (preview or trained) samples. */
  add(episodeId: string): void {
    this.enqueue({ what: 'episode', episodeId });
  }

  /** An episode a step trained: the samples it trained of it. */
  addTrained(episodeId: string): void {
    this.enqueue({ what: 'samples', episodeId });
  }

  private enqueue(job: Job): void {
    const key = jobKey(job);
    if (this.closed || this.queued.has(key)) return;
    if (this.queue.length >= this.maxQueued) {
      // Far behind (a replay of a long run): the oldest pending fetch is given up.
      this.queued.delete(jobKey(this.queue.shift()!));
    }
    this.queue.push(job);
    this.queued.add(key);
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
      const job = this.queue.shift()!;
      this.queued.delete(jobKey(job));
      this.active++;
      void (job.what === 'episode' ? this.fetchEpisode(job.episodeId) : this.fetchSamples(job.episodeId)).finally(
        () => {
          this.active--;
          this.pump();
          this.settle();
        },
      );
    }
  }

  private settle(): void {
    if (this.active > 0 || this.queue.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async fetchEpisode(episodeId: string): Promise<void> {
    const call = { params: { id: episodeId } };
    await this.guard(episodeId, async () => {
      const detail = await this.http.call('episode', call, { timeoutMs: 30_000 });
      const merged = detail.timelines.length > 0 ? await this.http.call('merged', call, { timeoutMs: 30_000 }) : null;
      const metrics = EndMetricsSchema.parse(detail.result)?.metrics ?? null;
      if (!this.closed)
        this.onFetched({ row: rowFromSummary(detail.episode), timelines: detail.timelines, merged, metrics });
    });
  }

  private async fetchSamples(episodeId: string): Promise<void> {
    await this.guard(episodeId, async () => {
      const merged = await this.http.call('merged', { params: { id: episodeId } }, { timeoutMs: 30_000 });
      if (!this.closed && merged.trained) this.onSamples({ episodeId, merged });
    });
  }

  private async guard(episodeId: string, fetch: () => Promise<void>): Promise<void> {
    try {
      await fetch();
    } catch (err) {
      if (err instanceof WorkbenchError && err.code === 'not_found') return; // the worker forgot it: nothing to store
      if (!this.closed) this.onError(`episode ${episodeId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
