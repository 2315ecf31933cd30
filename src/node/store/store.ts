// `openStore`: the workbench's SQLite store (DESIGN §6) on better-sqlite3 — WAL journal with
// synchronous=NORMAL (a committed transaction survives an app crash), foreign keys on, the
// migrations applied on open. The tables are served by parts: runs.ts, episodes.ts, logs.ts.
import { createContext } from './context';
import { episodesPart } from './episodes';
import { innerLoopPart } from './inner-loop';
import { labelsPart } from './labels';
import { logsPart } from './logs';
import { openDatabase } from './open-database';
import { rewardModelsPart } from './reward-models';
import { runsPart } from './runs';
import type { Store } from './types';

export interface StoreOptions {
  /** Log lines kept per run (default 50,000). */
  logCap?: number;
}

export const DEFAULT_LOG_CAP = 50_000;

export function openStore(path: string, options: StoreOptions = {}): Store {
  const db = openDatabase(path);
  const ctx = createContext(db);
  const runs = runsPart(ctx);
  const { vocab: _vocab, ...runMethods } = runs;
  return {
    path,
    transaction<T>(fn: () => T): T {
      try {
        return db.transaction(fn)();
      } catch (err) {
        ctx.forgetRunKeys();
        throw err;
      }
    },
    ...runMethods,
    ...episodesPart(ctx, runs.vocab),
    ...logsPart(ctx, options.logCap ?? DEFAULT_LOG_CAP),
    ...labelsPart(ctx),
    ...rewardModelsPart(ctx),
    ...innerLoopPart(ctx),
    close() {
      if (!db.open) return;
      db.pragma('optimize');
      db.close();
    },
  };
}
