// The workbench's persistence layer (DESIGN §6): the `Store` interface the services code against.
// Output shapes are the contract's (src/shared/workbench-api.ts); inputs are declared here.
// Every method is synchronous (better-sqlite3). Unknown run/episode ids throw
// `WorkbenchError('not_found', …)`.
import type {
  ClientRow,
  CodeFile,
  CodeMarker,
  CodeVersion,
  EpisodeDetail,
  EpisodeFilter,
  EpisodePage,
  EpisodeRow,
  EvalPoint,
  LogLine,
  LogSource,
  RunMetrics,
  RunRow,
  StepPoint,
} from '../../shared/workbench-api';
import type { TrainedInfo } from '../../shared/swarm-protocol';
import type { MergedSample, MergeStats, Timeline } from '../../shared/timeline';
import type { InnerLoopStore } from './inner-loop';
import type { RewardsStore } from './rewards-types';

export type RunMode = 'local' | 'remote';

export interface NewRun {
  runId: string;
  name: string;
  mode: RunMode;
  workerUrl: string;
  model: string;
  example: string | null;
  /** JSON-serializable snapshot of the run's configuration (worker config, connect params, …). */
  config: unknown;
  createdAt: number;
}

/** A run as stored, with its config snapshot (the contract's `RunRow` adds live/counters). */
export interface StoredRun extends NewRun {
  endedAt: number | null;
}

export interface NewCodeVersion {
  codeVersion: string;
  createdAt: number;
  /** Training steps completed when this version took over (null: never deployed). */
  step: number | null;
  files: readonly CodeFile[];
}

/**
 * An episode as it arrives (from an event or the episodes list). Upsert by (runId, episodeId):
 * kind/status/clientId/createdAt overwrite; the nullable fields (taskId, codeVersion, reward,
 * success, finishedAt) keep a stored value when the new one is null; `calls` never decreases.
 * `hasTimelines` is managed by `putEpisodeTimelines`.
 */
export type EpisodeInput = Omit<EpisodeRow, 'hasTimelines'>;

export interface MergedEpisode {
  samples: readonly MergedSample[];
  stats: MergeStats;
  /** How an update trained them; null or absent: a preview merged with the worker's settings of the time. */
  trained?: TrainedInfo | null;
}

export type EpisodeOrder = 'newest' | 'oldest' | 'reward_desc' | 'reward_asc';

/** Learned rewards (labels, episode metrics, reward models): see rewards-types.ts. */
export interface Store extends RewardsStore, InnerLoopStore {
  /** The database file (':memory:' in tests). */
  readonly path: string;

  /**
   * Runs `fn` in one SQLite transaction (nested calls join the outer one) and returns its
   * result; an exception rolls everything back. Use it to flush an ingest batch in one commit.
   */
  transaction<T>(fn: () => T): T;

  // Runs
  createRun(run: NewRun): void;
  endRun(runId: string, at: number): void;
  getRun(runId: string): StoredRun;
  /** Newest first; `live` is true for `liveRunId`. */
  listRuns(liveRunId: string | null): RunRow[];
  getRunRow(runId: string, liveRunId: string | null): RunRow;

  // Metrics
  /** Upsert by (runId, step). */
  putStep(runId: string, point: StepPoint): void;
  /** Upsert by (runId, weightVersion, time). */
  putEval(runId: string, point: EvalPoint): void;
  /** Upsert by (runId, codeVersion, time). */
  putMarker(runId: string, marker: CodeMarker): void;
  /** Ordered by step / time. */
  metrics(runId: string): RunMetrics;

  // Code versions
  /**
   * Idempotent per (runId, codeVersion); a later call may set `step` when it was null. File contents are deduplicated.
   */
  putCodeVersion(runId: string, version: NewCodeVersion): void;
  /** Marks when a stored version took over (a hot-swap), if not set already. */
  setCodeVersionStep(runId: string, codeVersion: string, step: number): void;
  /** Oldest first. */
  listCodeVersions(runId: string): CodeVersion[];
  codeVersionFiles(runId: string, codeVersion: string): CodeFile[];

  // Clients
  /** Upsert by (runId, clientId). */
  putClient(runId: string, client: ClientRow): void;
  listClients(runId: string): ClientRow[];

  // Episodes
  putEpisode(runId: string, episode: EpisodeInput): void;
  /**
   * Stores the episode's timelines (replacing earlier ones; read back in the order given, logprobs
   * at float32 precision) and its merge (samples + stats; null: not merged). The episode must exist
   * (`putEpisode` first). Atomic: an invalid timeline throws and changes nothing.
   */
  putEpisodeTimelines(
    runId: string,
    episodeId: string,
    timelines: readonly Timeline[],
    merged: MergedEpisode | null,
  ): void;
  /**
   * Replaces an episode's merged samples (what an update trained of it); a preview never replaces
   * trained samples, here or in `putEpisodeTimelines`. False when the store has no such episode.
   */
  putEpisodeSamples(runId: string, episodeId: string, merged: MergedEpisode): boolean;
  getEpisode(runId: string, episodeId: string): EpisodeRow;
  episodesPage(runId: string, filter: EpisodeFilter, offset: number, limit: number, order: EpisodeOrder): EpisodePage;
  episodeTimelines(runId: string, episodeId: string): Timeline[];
  episodeDetail(runId: string, episodeId: string): EpisodeDetail;

  // Vocabulary (token id → text), for the inspector
  putVocab(runId: string, pieces: readonly string[]): void;
  hasVocab(runId: string): boolean;

  // Logs (capped per run, `openStore(path, {logCap})`, default 50,000; the oldest are dropped)
  appendLog(runId: string, line: LogLine): void;
  /** The last `limit` lines of a source, oldest first. */
  recentLogs(runId: string, source: LogSource, limit: number): LogLine[];

  close(): void;
}
