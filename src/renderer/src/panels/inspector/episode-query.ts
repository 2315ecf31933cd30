// Pure helpers of the episode list: the filter form → API filter, which pages a visible range
// needs, shifting cached rows when new episodes arrive on top, and cell formatting.
import type { EpisodeFilter, EpisodeRow, WorkbenchParams } from '../../../../shared/workbench-api';
import type { EpisodeKind, EpisodeStatus } from '../../../../shared/swarm-protocol';

export type EpisodeOrder = NonNullable<WorkbenchParams<'episodes'>['order']>;
export const EPISODE_ORDERS: { value: EpisodeOrder; label: string }[] = [
  { value: 'newest', label: 'newest first' },
  { value: 'oldest', label: 'oldest first' },
  { value: 'reward_desc', label: 'reward ↓' },
  { value: 'reward_asc', label: 'reward ↑' },
];
export const EPISODE_KINDS: readonly EpisodeKind[] = ['train', 'eval'];
export const EPISODE_STATUSES: readonly EpisodeStatus[] = ['open', 'ending', 'ended', 'aborted', 'expired'];

/** The filter inputs as typed (strings; '' = any). */
export interface FilterForm {
  task: string;
  clientId: string;
  codeVersion: string;
  role: string;
  minReward: string;
  maxReward: string;
  kind: '' | EpisodeKind;
  status: '' | EpisodeStatus;
}

export const EMPTY_FILTER_FORM: FilterForm = {
  task: '',
  clientId: '',
  codeVersion: '',
  role: '',
  minReward: '',
  maxReward: '',
  kind: '',
  status: '',
};

/** The API filter of a form; a reward bound that is not a number is an error (and left out). */
export function filterFromForm(form: FilterForm): { filter: EpisodeFilter; errors: string[] } {
  const filter: EpisodeFilter = {};
  const errors: string[] = [];
  const text = (v: string, max: number): string | undefined => {
    const t = v.trim();
    return t === '' ? undefined : t.slice(0, max);
  };
  const task = text(form.task, 200);
  if (task !== undefined) filter.task = task;
  const clientId = text(form.clientId, 300);
  if (clientId !== undefined) filter.clientId = clientId;
  const codeVersion = text(form.codeVersion, 100);
  if (codeVersion !== undefined) filter.codeVersion = codeVersion;
  const role = text(form.role, 100);
  if (role !== undefined) filter.role = role;
  const bound = (v: string, name: string): number | undefined => {
    const t = v.trim();
    if (t === '') return undefined;
    const n = Number(t);
    if (!Number.isFinite(n)) {
      errors.push(`${name} must be a number, got “${t}”`);
      return undefined;
    }
    return n;
  };
  const minReward = bound(form.minReward, 'min reward');
  if (minReward !== undefined) filter.minReward = minReward;
  const maxReward = bound(form.maxReward, 'max reward');
  if (maxReward !== undefined) filter.maxReward = maxReward;
  if (minReward !== undefined && maxReward !== undefined && minReward > maxReward)
    errors.push('min reward is above max reward');
  if (form.kind !== '') filter.kind = form.kind;
  if (form.status !== '') filter.status = form.status;
  return { filter, errors };
}

/** A stable key of a query, to drop results of a superseded one. */
export function queryKey(runId: string, filter: EpisodeFilter, order: EpisodeOrder): string {
  const sorted = Object.fromEntries(Object.entries(filter).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify([runId, sorted, order]);
}

/** The page indices that cover rows `[start, end]` (inclusive), clamped to the total. */
export function pagesForRange(start: number, end: number, pageSize: number, total: number): number[] {
  if (total <= 0 || end < start) return [];
  const first = Math.floor(Math.max(0, start) / pageSize);
  const last = Math.floor(Math.min(total - 1, end) / pageSize);
  const pages: number[] = [];
  for (let p = first; p <= last; p++) pages.push(p);
  return pages;
}

/** Rows cached by absolute index, with `page` stored at `offset`. */
export function storePage(
  rows: ReadonlyMap<number, EpisodeRow>,
  offset: number,
  page: readonly EpisodeRow[],
): Map<number, EpisodeRow> {
  const next = new Map(rows);
  page.forEach((row, i) => next.set(offset + i, row));
  return next;
}

/**
 * Bounds the row cache: when it holds more than `max` rows, keeps only those within `max / 2` of
 * `center` (the page just loaded), so scrolling through 100,000 episodes does not hold them all.
 */
export function pruneRows(rows: ReadonlyMap<number, EpisodeRow>, center: number, max: number): Map<number, EpisodeRow> {
  if (rows.size <= max) return new Map(rows);
  const half = Math.floor(max / 2);
  const next = new Map<number, EpisodeRow>();
  for (const [i, row] of rows) if (Math.abs(i - center) <= half) next.set(i, row);
  return next;
}

/** The pages of a row cache that are fully present (a page is fetched whole, so its first row suffices). */
export function pagesPresent(
  rows: ReadonlyMap<number, EpisodeRow>,
  pages: Iterable<number>,
  pageSize: number,
): Set<number> {
  const kept = new Set<number>();
  for (const p of pages) if (rows.has(p * pageSize)) kept.add(p);
  return kept;
}

/**
 * When `added` new episodes arrived on top of a newest-first list, every cached row moves down by
 * that many places; rows pushed past the total are dropped.
 */
export function shiftRows(
  rows: ReadonlyMap<number, EpisodeRow>,
  added: number,
  total: number,
): Map<number, EpisodeRow> {
  const next = new Map<number, EpisodeRow>();
  for (const [i, row] of rows) if (i + added >= 0 && i + added < total) next.set(i + added, row);
  return next;
}

/**
 * How far to move the scroll position after a live refresh so the rows the user looks at stay put:
 * only for newest-first lists scrolled away from the top, by the number of rows added above.
 */
export function scrollCompensation(order: EpisodeOrder, scrollTop: number, added: number, rowHeight: number): number {
  if (order !== 'newest' || scrollTop <= 0 || added <= 0) return 0;
  return added * rowHeight;
}

export function formatReward(reward: number | null): string {
  if (reward === null) return '—';
  if (Number.isInteger(reward)) return String(reward);
  return Math.abs(reward) >= 100 ? reward.toFixed(1) : reward.toFixed(3);
}

export function formatSuccess(success: boolean | null): string {
  return success === null ? '—' : success ? '✓' : '✗';
}

/** Seconds (or ms) between two epoch-ms times, compact. */
export function formatDuration(startMs: number, endMs: number | null): string {
  if (endMs === null) return '…';
  const ms = Math.max(0, endMs - startMs);
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

/** hh:mm:ss of an epoch-ms time (local). */
export function formatClock(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** What changes when the newest episode changes on the worker (ends, gets its timelines); null without one. */
export function episodeTick(row: EpisodeRow | null): string | null {
  if (!row) return null;
  return `${row.episodeId}|${row.status}|${row.finishedAt ?? ''}|${String(row.hasTimelines)}`;
}
