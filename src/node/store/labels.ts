// The store's labels: good/bad on one episode, or a preference between two episodes of one task
// (stored in id order with which side won), each with its author, source, time, and the task and code
// versions of the episodes it judges.
import { z } from 'zod';
import { LabelSchema, type Label, type LabelSummary } from '../../shared/rewards-api';
import { WorkbenchError } from '../../shared/workbench-api';
import { checked, parseRow, type StoreContext } from './context';
import { pairKey, type LabelInput, type RewardsStore } from './rewards-types';

type LabelsPart = Pick<RewardsStore, 'putLabel' | 'deleteLabel' | 'listLabels' | 'labelSummary' | 'labelledSets'>;

const LabelInputSchema = z.object({
  kind: LabelSchema.shape.kind,
  episodeId: z.string().min(1).max(300),
  otherEpisodeId: z.string().min(1).max(300).optional(),
  author: z.string().min(1).max(200),
  source: z.string().min(1).max(100),
  createdAt: z.number(),
});

const LabelDbRowSchema = z.object({
  id: z.number().int(),
  episode_id: z.string(),
  other_episode_id: z.string(),
  value: z.number().int(),
  task_id: z.string().nullable(),
  code_version: z.string().nullable(),
  other_code_version: z.string().nullable(),
  author: z.string(),
  source: z.string(),
  created_at: z.number(),
});

/** A stored row as the contract's label (for a pair, the preferred episode first). */
function toLabel(raw: unknown): Label {
  const r = parseRow(LabelDbRowSchema, raw, 'label');
  const common = { id: r.id, taskId: r.task_id, author: r.author, source: r.source, createdAt: r.created_at };
  if (r.other_episode_id === '')
    return {
      ...common,
      kind: r.value === 1 ? 'good' : 'bad',
      episodeId: r.episode_id,
      otherEpisodeId: null,
      codeVersion: r.code_version,
      otherCodeVersion: null,
    };
  const firstWins = r.value === 1;
  return {
    ...common,
    kind: 'prefer',
    episodeId: firstWins ? r.episode_id : r.other_episode_id,
    otherEpisodeId: firstWins ? r.other_episode_id : r.episode_id,
    codeVersion: firstWins ? r.code_version : r.other_code_version,
    otherCodeVersion: firstWins ? r.other_code_version : r.code_version,
  };
}

const EpisodeFactsSchema = z.object({ task_id: z.string().nullable(), code_version: z.string().nullable() });

export function labelsPart(ctx: StoreContext): LabelsPart {
  const { stmt, runKey } = ctx;
  const facts = (run: number, runId: string, episodeId: string): z.infer<typeof EpisodeFactsSchema> => {
    const row: unknown = stmt('SELECT task_id, code_version FROM episodes WHERE run = ? AND episode_id = ?').get(
      run,
      episodeId,
    );
    if (row === undefined)
      throw new WorkbenchError('not_found', `run ${JSON.stringify(runId)} has no episode ${JSON.stringify(episodeId)}`);
    return parseRow(EpisodeFactsSchema, row, 'episode');
  };

  return {
    putLabel(runId, input: LabelInput) {
      const l = checked(LabelInputSchema, input, 'label');
      const run = runKey(runId);
      const a = facts(run, runId, l.episodeId);
      let row: {
        episode: string;
        other: string;
        value: number;
        task: string | null;
        code: string | null;
        otherCode: string | null;
      };
      if (l.kind === 'prefer') {
        const other = l.otherEpisodeId;
        if (other === undefined || other === l.episodeId)
          throw new WorkbenchError('invalid_input', 'label: a preference needs another episode (otherEpisodeId)');
        const b = facts(run, runId, other);
        if (a.task_id === null || a.task_id !== b.task_id) {
          throw new WorkbenchError(
            'invalid_input',
            `label: ${l.episodeId} (task ${a.task_id ?? 'none'}) and ${other} (task ${b.task_id ?? 'none'}) are ` +
              'not of the same task group',
          );
        }
        const firstIsChosen = l.episodeId < other;
        row = firstIsChosen
          ? { episode: l.episodeId, other, value: 1, task: a.task_id, code: a.code_version, otherCode: b.code_version }
          : {
              episode: other,
              other: l.episodeId,
              value: 0,
              task: a.task_id,
              code: b.code_version,
              otherCode: a.code_version,
            };
      } else {
        if (l.otherEpisodeId !== undefined)
          throw new WorkbenchError('invalid_input', `label: a ${l.kind} label judges one episode (no otherEpisodeId)`);
        row = {
          episode: l.episodeId,
          other: '',
          value: l.kind === 'good' ? 1 : 0,
          task: a.task_id,
          code: a.code_version,
          otherCode: null,
        };
      }
      const existing: unknown = stmt(
        'SELECT id FROM labels WHERE run = ? AND episode_id = ? AND other_episode_id = ? AND author = ?',
      )
        .pluck()
        .get(run, row.episode, row.other, l.author);
      const stored = stmt(`
        INSERT INTO labels (run, episode_id, other_episode_id, value, task_id, code_version, other_code_version, author,
          source, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (run, episode_id, other_episode_id, author) DO UPDATE SET
          value = excluded.value, task_id = excluded.task_id, code_version = excluded.code_version,
          other_code_version = excluded.other_code_version, source = excluded.source, created_at = excluded.created_at
        RETURNING *`).get(
        run,
        row.episode,
        row.other,
        row.value,
        row.task,
        row.code,
        row.otherCode,
        l.author,
        l.source,
        l.createdAt,
      );
      return { label: toLabel(stored), replaced: typeof existing === 'number' };
    },

    deleteLabel(runId, labelId) {
      const changes = stmt('DELETE FROM labels WHERE run = ? AND id = ?').run(runKey(runId), labelId).changes;
      if (changes === 0) throw new WorkbenchError('not_found', `run ${JSON.stringify(runId)} has no label ${labelId}`);
    },

    listLabels(runId, episodeId, limit = -1) {
      const run = runKey(runId);
      const rows =
        episodeId === undefined
          ? stmt('SELECT * FROM labels WHERE run = ? ORDER BY created_at DESC, id DESC LIMIT ?').all(run, limit)
          : stmt(
              'SELECT * FROM labels WHERE run = ? AND (episode_id = ? OR other_episode_id = ?) ORDER BY created_at DESC, id DESC LIMIT ?',
            ).all(run, episodeId, episodeId, limit);
      return rows.map(toLabel);
    },

    labelSummary(runId): LabelSummary {
      const run = runKey(runId);
      const counts = parseRow(
        z.object({ good: z.number().nullable(), bad: z.number().nullable(), pairs: z.number().nullable() }),
        stmt(
          `SELECT SUM(other_episode_id = '' AND value = 1) AS good, SUM(other_episode_id = '' AND value = 0) AS bad, SUM(other_episode_id != '') AS pairs FROM labels WHERE run = ?`,
        ).get(run),
        'label counts',
      );
      const episodes: unknown = stmt(
        `SELECT COUNT(*) FROM (SELECT episode_id FROM labels WHERE run = ? UNION SELECT other_episode_id FROM labels WHERE run = ? AND other_episode_id != '')`,
      )
        .pluck()
        .get(run, run);
      const authors = stmt('SELECT DISTINCT author FROM labels WHERE run = ? ORDER BY author')
        .pluck()
        .all(run)
        .filter((a): a is string => typeof a === 'string');
      return {
        good: counts.good ?? 0,
        bad: counts.bad ?? 0,
        pairs: counts.pairs ?? 0,
        labelledEpisodes: typeof episodes === 'number' ? episodes : 0,
        authors,
      };
    },

    labelledSets(runId) {
      const rows = stmt('SELECT episode_id, other_episode_id FROM labels WHERE run = ?')
        .all(runKey(runId))
        .map((r) => parseRow(z.object({ episode_id: z.string(), other_episode_id: z.string() }), r, 'label'));
      const points = new Set<string>();
      const pairs = new Set<string>();
      for (const r of rows) {
        if (r.other_episode_id === '') points.add(r.episode_id);
        else pairs.add(pairKey(r.episode_id, r.other_episode_id));
      }
      return { points, pairs };
    },
  };
}
