// The store's episode tables: episode rows (upserted as events arrive), their timelines and
// merged samples in compact form, filtered/ordered pages served by indexes, and the inspector's
// episode detail.
import { z } from 'zod';
import { MergeStatsSchema, type MergeStats, type Timeline } from '../../shared/timeline';
import { EpisodeKindSchema, EpisodeStatusSchema, TrainedInfoSchema } from '../../shared/swarm-protocol';
import { EpisodeRowSchema, WorkbenchError, type EpisodeRow } from '../../shared/workbench-api';
import { checked, parseRow, parseStoredJson, type StoreContext } from './context';
import { EPISODE_COLUMNS, episodePageSql } from './episode-query';
import { recordsToTimelines, recordToSample, sampleToRecord, timelinesToRecords } from './records';
import type { EpisodeInput, MergedEpisode, Store } from './types';
import { episodeDetailView } from './views';

const MergedRowSchema = z.object({ merge_stats: z.string().nullable(), trained: z.string().nullable() });

type EpisodesPart = Pick<
  Store,
  | 'putEpisode'
  | 'putEpisodeTimelines'
  | 'putEpisodeSamples'
  | 'getEpisode'
  | 'episodesPage'
  | 'episodeTimelines'
  | 'episodeDetail'
>;

const EpisodeDbRowSchema = z.object({
  episode_id: z.string(),
  kind: EpisodeKindSchema,
  status: EpisodeStatusSchema,
  task_id: z.string().nullable(),
  client_id: z.string(),
  code_version: z.string().nullable(),
  role: z.string().nullable(),
  reward: z.number().nullable(),
  success: z.number().int().nullable(),
  calls: z.number().int(),
  created_at: z.number(),
  finished_at: z.number().nullable(),
  has_timelines: z.number().int(),
});

function toEpisodeRow(raw: unknown): EpisodeRow {
  const r = parseRow(EpisodeDbRowSchema, raw, 'episode');
  return {
    episodeId: r.episode_id,
    kind: r.kind,
    status: r.status,
    taskId: r.task_id,
    clientId: r.client_id,
    codeVersion: r.code_version,
    role: r.role,
    reward: r.reward,
    success: r.success === null ? null : r.success !== 0,
    calls: r.calls,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    hasTimelines: r.has_timelines !== 0,
  };
}

const EpisodeInputSchema = EpisodeRowSchema.omit({ hasTimelines: true });

// Nullable fields keep a value already known when a later upsert does not know it (an event
// that carries no reward must not erase one stored from the episode list).
const UPSERT_EPISODE_SQL = `
  INSERT INTO episodes (run, episode_id, kind, status, task_id, client_id, code_version, role, reward, success, calls,
    created_at, finished_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (run, episode_id) DO UPDATE SET
    kind = excluded.kind,
    status = excluded.status,
    task_id = COALESCE(excluded.task_id, episodes.task_id),
    client_id = excluded.client_id,
    code_version = COALESCE(excluded.code_version, episodes.code_version),
    role = COALESCE(excluded.role, episodes.role),
    reward = COALESCE(excluded.reward, episodes.reward),
    success = COALESCE(excluded.success, episodes.success),
    calls = MAX(excluded.calls, episodes.calls),
    created_at = excluded.created_at,
    finished_at = COALESCE(excluded.finished_at, episodes.finished_at)`;

const TIMELINE_INSERT_SQL = `
  INSERT INTO timelines (episode, seq, timeline_id, episode_id, agent, call_index, weight_version, finish_reason,
    created_at, prompt_base, prompt_shared, messages_shared, spans_shared, prompt_ids, prompt_spans, output_ids,
    output_logprobs, messages, tools, output)
  VALUES (@episode, @seq, @timeline_id, @episode_id, @agent, @call_index, @weight_version, @finish_reason,
    @created_at, @prompt_base, @prompt_shared, @messages_shared, @spans_shared, @prompt_ids, @prompt_spans, @output_ids,
    @output_logprobs, @messages, @tools, @output)`;

const SAMPLE_INSERT_SQL = `
  INSERT INTO samples (episode, seq, kind, episode_ids, task_id, length, token_ids, loss_mask, rollout_logprobs, spans,
    absorbed, parents, positions, weights)
  VALUES (@episode, @seq, @kind, @episode_ids, @task_id, @length, @token_ids, @loss_mask, @rollout_logprobs, @spans,
    @absorbed, @parents, @positions, @weights)`;

export function episodesPart(ctx: StoreContext, vocab: (runId: string) => readonly string[] | null): EpisodesPart {
  const { stmt, runKey, episodeKey } = ctx;

  const timelinesOf = (episode: number): Timeline[] =>
    recordsToTimelines(stmt('SELECT * FROM timelines WHERE episode = ? ORDER BY seq').all(episode));

  const mergedOf = (episode: number, runId: string, episodeId: string): MergedEpisode | null => {
    const row = parseRow(
      MergedRowSchema,
      stmt('SELECT merge_stats, trained FROM episodes WHERE id = ?').get(episode),
      'episode',
    );
    if (row.merge_stats === null) return null;
    const what = `episode ${episodeId} (run ${runId})`;
    const stats: MergeStats = parseStoredJson(MergeStatsSchema, row.merge_stats, `merge stats of ${what}`);
    const trained =
      row.trained === null ? null : parseStoredJson(TrainedInfoSchema, row.trained, `training of ${what}`);
    return {
      stats,
      trained,
      samples: stmt('SELECT * FROM samples WHERE episode = ? ORDER BY seq').all(episode).map(recordToSample),
    };
  };

  /** Whether the stored samples are trained ones (which a preview must not replace). */
  const holdsTrained = (episode: number): boolean =>
    typeof stmt('SELECT trained FROM episodes WHERE id = ?').pluck().get(episode) === 'string';

  /** Writes samples, stats and training of an episode (inside a transaction). */
  const writeMerged = (
    episode: number,
    merged: MergedEpisode | null,
    sampleRows: readonly Record<string, unknown>[],
  ): void => {
    const stats = merged === null ? null : JSON.stringify(checked(MergeStatsSchema, merged.stats, 'merge stats'));
    const trained = merged?.trained ? JSON.stringify(checked(TrainedInfoSchema, merged.trained, 'training')) : null;
    stmt('DELETE FROM samples WHERE episode = ?').run(episode);
    for (const row of sampleRows) stmt(SAMPLE_INSERT_SQL).run(row);
    stmt('UPDATE episodes SET merge_stats = ?, trained = ? WHERE id = ?').run(stats, trained, episode);
  };

  return {
    putEpisode(runId, input: EpisodeInput) {
      const e = checked(EpisodeInputSchema, input, 'episode');
      stmt(UPSERT_EPISODE_SQL).run(
        runKey(runId),
        e.episodeId,
        e.kind,
        e.status,
        e.taskId,
        e.clientId,
        e.codeVersion,
        e.role,
        e.reward,
        e.success === null ? null : e.success ? 1 : 0,
        e.calls,
        e.createdAt,
        e.finishedAt,
      );
    },

    putEpisodeTimelines(runId, episodeId, timelines, merged) {
      const episode = episodeKey(runId, episodeId);
      const stranger = timelines.find((t) => t.episodeId !== episodeId);
      if (stranger !== undefined)
        throw new WorkbenchError(
          'invalid_input',
          `timeline ${stranger.id} belongs to episode ${stranger.episodeId}, not ${episodeId}`,
        );
      // Encode everything before writing, so a bad timeline writes nothing.
      const timelineRows = timelinesToRecords(timelines).map((r, seq) => ({ episode, seq, ...r }));
      const sampleRows = (merged?.samples ?? []).map((s, seq) => ({ episode, seq, ...sampleToRecord(s) }));
      ctx.db.transaction(() => {
        stmt('DELETE FROM timelines WHERE episode = ?').run(episode);
        for (const row of timelineRows) stmt(TIMELINE_INSERT_SQL).run(row);
        stmt('UPDATE episodes SET has_timelines = 1 WHERE id = ?').run(episode);
        if (merged?.trained || !holdsTrained(episode)) writeMerged(episode, merged, sampleRows);
      })();
    },

    putEpisodeSamples(runId, episodeId, merged) {
      const key = ctx.findEpisodeKey(runId, episodeId);
      if (key === null) return false;
      const sampleRows = merged.samples.map((s, seq) => ({ episode: key, seq, ...sampleToRecord(s) }));
      ctx.db.transaction(() => {
        if (merged.trained || !holdsTrained(key)) writeMerged(key, merged, sampleRows);
      })();
      return true;
    },

    getEpisode(runId, episodeId) {
      return toEpisodeRow(
        stmt(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE id = ?`).get(episodeKey(runId, episodeId)),
      );
    },

    episodesPage(runId, filter, offset, limit, order) {
      const q = episodePageSql(runKey(runId), filter, order);
      const total: unknown = stmt(q.count)
        .pluck()
        .get(...q.params);
      if (typeof total !== 'number') throw new Error('episode count is not a number');
      const rows = stmt(q.page)
        .all(...q.params, limit, offset)
        .map(toEpisodeRow);
      return { total, offset, rows };
    },

    episodeTimelines(runId, episodeId) {
      return timelinesOf(episodeKey(runId, episodeId));
    },

    episodeDetail(runId, episodeId) {
      const episode = episodeKey(runId, episodeId);
      return episodeDetailView({
        episode: toEpisodeRow(stmt(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE id = ?`).get(episode)),
        timelines: timelinesOf(episode),
        merged: mergedOf(episode, runId, episodeId),
        vocab: vocab(runId),
      });
    },
  };
}
