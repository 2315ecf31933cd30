// The SQL of an episodes page: a WHERE clause from the filter (bound parameters only, never
// spliced text) and an ORDER BY that the episodes indexes serve — (run, created_at) for time
// order, (run, reward, created_at) for reward order, (run, <column>, created_at) for an
// equality filter. Pure: filter in, SQL fragments and parameters out.
import type { EpisodeFilter } from '../../shared/workbench-api';
import type { EpisodeOrder } from './types';

export type SqlValue = string | number;

export interface EpisodeQuery {
  /** `WHERE …` over table alias-free columns; `run = ?` always first. */
  where: string;
  params: SqlValue[];
  orderBy: string;
}

/** Escapes LIKE wildcards so the task filter is a plain substring (ESCAPE '\'). */
export function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const ORDER_SQL: Record<EpisodeOrder, string> = {
  newest: 'created_at DESC, id DESC',
  oldest: 'created_at ASC, id ASC',
  // Episodes without a reward (still open) sort last either way (reward_asc: index episodes_reward_nulls_last).
  reward_desc: 'reward DESC, created_at DESC, id DESC',
  reward_asc: 'reward IS NULL, reward ASC, created_at ASC, id ASC',
};

export function episodeQuery(run: number, filter: EpisodeFilter, order: EpisodeOrder): EpisodeQuery {
  const clauses = ['run = ?'];
  const params: SqlValue[] = [run];
  const eq = (column: string, value: string | undefined): void => {
    if (value === undefined) return;
    clauses.push(`${column} = ?`);
    params.push(value);
  };
  eq('client_id', filter.clientId);
  eq('code_version', filter.codeVersion);
  eq('role', filter.role);
  eq('kind', filter.kind);
  eq('status', filter.status);
  if (filter.task !== undefined && filter.task !== '') {
    clauses.push(`task_id LIKE ? ESCAPE '\\'`);
    params.push(likeSubstring(filter.task));
  }
  if (filter.minReward !== undefined) {
    clauses.push('reward >= ?');
    params.push(filter.minReward);
  }
  if (filter.maxReward !== undefined) {
    clauses.push('reward <= ?');
    params.push(filter.maxReward);
  }
  // With a reward range no row lacks a reward, and plain `reward ASC` lets the range's index order the page.
  const rewardRange = filter.minReward !== undefined || filter.maxReward !== undefined;
  const orderBy = order === 'reward_asc' && rewardRange ? 'reward ASC, created_at ASC, id ASC' : ORDER_SQL[order];
  return { where: `WHERE ${clauses.join(' AND ')}`, params, orderBy: `ORDER BY ${orderBy}` };
}

export const EPISODE_COLUMNS =
  'episode_id, kind, status, task_id, client_id, code_version, role, reward, success, calls, created_at, finished_at, has_timelines';

/** The two statements of a page: `count` binds `params`; `page` binds `params`, limit, offset. */
export function episodePageSql(
  run: number,
  filter: EpisodeFilter,
  order: EpisodeOrder,
): { count: string; page: string; params: SqlValue[] } {
  const q = episodeQuery(run, filter, order);
  return {
    count: `SELECT COUNT(*) FROM episodes ${q.where}`,
    page: `SELECT ${EPISODE_COLUMNS} FROM episodes ${q.where} ${q.orderBy} LIMIT ? OFFSET ?`,
    params: q.params,
  };
}
