// What the store's parts share: the open database, a prepared-statement cache, run-id and
// episode-id → row-key resolution (unknown ids are `not_found` errors), JSON parsing that names
// what was damaged, and content hashing for deduplicated blobs.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { z } from 'zod';
import { WorkbenchError } from '../../shared/workbench-api';

export interface StoreContext {
  readonly db: Database.Database;
  /** A prepared statement for `sql`, prepared once per store. */
  stmt(sql: string): Database.Statement;
  /** The runs table's key of `runId`; throws `not_found` for an unknown run. */
  runKey(runId: string): number;
  /** Forgets cached run keys (after a rollback may have undone a createRun). */
  forgetRunKeys(): void;
  /** The episodes table's key of a run's episode, or null when the run has no such episode. */
  findEpisodeKey(runId: string, episodeId: string): number | null;
  /** The same key; throws `not_found` for an unknown episode. */
  episodeKey(runId: string, episodeId: string): number;
}

export function createContext(db: Database.Database): StoreContext {
  const statements = new Map<string, Database.Statement>();
  const runKeys = new Map<string, number>();
  const stmt = (sql: string): Database.Statement => {
    let s = statements.get(sql);
    if (s === undefined) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };
  const runKey = (runId: string): number => {
    const cached = runKeys.get(runId);
    if (cached !== undefined) return cached;
    const row: unknown = stmt('SELECT id FROM runs WHERE run_id = ?').pluck().get(runId);
    if (typeof row !== 'number') throw new WorkbenchError('not_found', `no run ${JSON.stringify(runId)} in the store`);
    runKeys.set(runId, row);
    return row;
  };
  const findEpisodeKey = (runId: string, episodeId: string): number | null => {
    const key: unknown = stmt('SELECT id FROM episodes WHERE run = ? AND episode_id = ?')
      .pluck()
      .get(runKey(runId), episodeId);
    return typeof key === 'number' ? key : null;
  };
  return {
    db,
    stmt,
    runKey,
    findEpisodeKey,
    episodeKey(runId, episodeId) {
      const key = findEpisodeKey(runId, episodeId);
      if (key === null)
        throw new WorkbenchError(
          'not_found',
          `run ${JSON.stringify(runId)} has no episode ${JSON.stringify(episodeId)}`,
        );
      return key;
    },
    forgetRunKeys() {
      runKeys.clear();
    },
  };
}

/** Parses stored JSON text against a schema; a mismatch is an error naming what was stored. */
export function parseStoredJson<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`stored ${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `stored ${what} does not match its schema: ` +
        `${parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** Parses a row a query returned; a mismatch means the schema and the code disagree. */
export function parseRow<T>(schema: z.ZodType<T>, row: unknown, what: string): T {
  const parsed = schema.safeParse(row);
  if (!parsed.success)
    throw new Error(
      `unexpected ${what} row: ` +
        `${parsed.error.issues.map((i) => `${i.path.join('.') || '(row)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** Validates an input before it is stored: a bad value is an `invalid_input` error and nothing is written. */
export function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new WorkbenchError(
      'invalid_input',
      `${what}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
