// The file-system seam of the pool journal: the few operations it needs, so tests can inject I/O
// failures (a full disk, a failing rename) with a fake. The real one is node:fs/promises.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';

export interface JournalFile {
  /** Appends all of `text` at the end of the file. */
  append(text: string): Promise<void>;
  /** fdatasync: what was appended survives a power loss. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface JournalFs {
  /** The file's text, or null when it does not exist. */
  readText(path: string): Promise<string | null>;
  /** Opens an existing (or new) file for appending, mode 0600. */
  openAppend(path: string): Promise<JournalFile>;
  /** Creates a new file for appending (fails if it exists), mode 0600. */
  create(path: string): Promise<JournalFile>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** fsync of a directory (makes a rename durable); a no-op where unsupported. */
  syncDir(dir: string): Promise<void>;
}

async function fileAt(path: string, flags: string): Promise<JournalFile> {
  const h = await open(path, flags, 0o600);
  return {
    // FileHandle.appendFile writes everything (looping over partial writes), at the end: O_APPEND.
    append: (text) => h.appendFile(text),
    sync: () => h.datasync(),
    close: () => h.close(),
  };
}

export const nodeJournalFs: JournalFs = {
  readText: async (path) => {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  },
  openAppend: (path) => fileAt(path, 'a'),
  create: (path) => fileAt(path, 'ax'),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  syncDir: async (dir) => {
    try {
      const h = await open(dir, 'r');
      try {
        await h.sync();
      } finally {
        await h.close();
      }
    } catch {
      // Some filesystems cannot fsync a directory; the rename is atomic all the same.
    }
  },
};

/** A temporary sibling of `path` for an atomic rewrite. */
export const tempPathFor = (path: string): string => `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
