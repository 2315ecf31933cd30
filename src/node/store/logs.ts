// The store's log lines: appended per run and source, capped per run — once a run holds more
// than `cap` + a tenth of it, the oldest are trimmed back to `cap` (so appends stay O(1)).
import { z } from 'zod';
import { LogLineSchema, type LogLine, type LogSource } from '../../shared/workbench-api';
import { checked, parseRow, type StoreContext } from './context';
import type { Store } from './types';

type LogsPart = Pick<Store, 'appendLog' | 'recentLogs'>;

const LogDbRowSchema = z.object({
  t: z.number(),
  source: z.string(),
  stream: LogLineSchema.shape.stream,
  line: z.string(),
});

/** The `source` column: `worker`, or `client:<id>` (runs stored before this held the bare client id). */
export const sourceKey = (s: LogSource): string => (s.kind === 'worker' ? 'worker' : `client:${s.clientId}`);

export function sourceOfKey(key: string): LogSource {
  if (key === 'worker') return { kind: 'worker' };
  return { kind: 'client', clientId: key.startsWith('client:') ? key.slice('client:'.length) : key };
}

export function logsPart(ctx: StoreContext, cap: number): LogsPart {
  if (!Number.isInteger(cap) || cap < 1) throw new Error(`log cap must be a positive integer, got ${cap}`);
  const { stmt, runKey } = ctx;
  const slack = Math.max(1, Math.floor(cap / 10));
  /** Lines per run, counted once per run and then tracked (trimming recounts exactly). */
  const counts = new Map<number, number>();

  const countOf = (run: number): number => {
    const known = counts.get(run);
    if (known !== undefined) return known;
    const n: unknown = stmt('SELECT COUNT(*) FROM logs WHERE run = ?').pluck().get(run);
    if (typeof n !== 'number') throw new Error('log count is not a number');
    counts.set(run, n);
    return n;
  };

  const trim = (run: number): void => {
    const oldestKept: unknown = stmt('SELECT id FROM logs WHERE run = ? ORDER BY id DESC LIMIT 1 OFFSET ?')
      .pluck()
      .get(run, cap - 1);
    if (typeof oldestKept === 'number') stmt('DELETE FROM logs WHERE run = ? AND id < ?').run(run, oldestKept);
    counts.delete(run);
  };

  return {
    appendLog(runId, input: LogLine) {
      const line = checked(LogLineSchema, input, 'log line');
      const run = runKey(runId);
      const n = countOf(run);
      stmt('INSERT INTO logs (run, t, source, stream, line) VALUES (?, ?, ?, ?, ?)').run(
        run,
        line.t,
        sourceKey(line.source),
        line.stream,
        line.line,
      );
      counts.set(run, n + 1);
      if (n + 1 > cap + slack) trim(run);
    },

    recentLogs(runId, source, limit) {
      if (!Number.isInteger(limit) || limit < 0)
        throw new Error(`recentLogs: limit must be a non-negative integer, got ${limit}`);
      // A client's lines of older runs are stored under its bare id.
      const bareId = source.kind === 'client' ? source.clientId : sourceKey(source);
      return stmt(
        'SELECT t, source, stream, line FROM logs WHERE run = ? AND source IN (?, ?) ORDER BY id DESC LIMIT ?',
      )
        .all(runKey(runId), sourceKey(source), bareId, limit)
        .map((row): LogLine => {
          const r = parseRow(LogDbRowSchema, row, 'log');
          return { ...r, source: sourceOfKey(r.source) };
        })
        .reverse();
    },
  };
}
