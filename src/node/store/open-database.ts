// The one way the workbench's SQLite database is opened (the store and the campaign store share
// the file): WAL journal, NORMAL sync, foreign keys on, a 5 s busy timeout, and migrated to the
// current schema; closed again when any of that fails.
import Database from 'better-sqlite3';
import { migrate } from './migrations';

export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
