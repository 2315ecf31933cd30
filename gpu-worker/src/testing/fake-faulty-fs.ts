// A fake file system for the pool journal (tests only): the real one underneath, with I/O
// failures injected on demand — a full disk on append or fsync, a rename that fails — as Node
// reports them (errors with an errno `code`).
import { nodeJournalFs, type JournalFile, type JournalFs } from '../swarm/journal-fs';

export type FaultyOp = 'append' | 'sync' | 'create' | 'rename' | 'openAppend';

const errnoMessages: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EIO: 'i/o error',
  EACCES: 'permission denied',
};

function ioError(op: FaultyOp, code: string, path: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: ${errnoMessages[code] ?? 'failure'}, ${op} '${path}'`);
  err.code = code;
  return err;
}

export class FakeFaultyFs implements JournalFs {
  private readonly faults = new Map<FaultyOp, { code: string; times: number }>();
  /** Every path `create` was called with (temporary files of compactions). */
  readonly created: string[] = [];

  constructor(private readonly real: JournalFs = nodeJournalFs) {}

  /** The next `times` calls of `op` fail with errno `code` (Infinity: until `heal`). */
  fail(op: FaultyOp, code = 'ENOSPC', times = 1): this {
    this.faults.set(op, { code, times });
    return this;
  }

  heal(): void {
    this.faults.clear();
  }

  private check(op: FaultyOp, path: string): void {
    const f = this.faults.get(op);
    if (!f || f.times <= 0) return;
    f.times -= 1;
    throw ioError(op, f.code, path);
  }

  private wrap(file: JournalFile, path: string): JournalFile {
    return {
      append: async (text) => {
        const f = this.faults.get('append');
        if (f && f.times > 0) {
          // A full disk mid-write: part of the line lands, then the write fails.
          await file.append(text.slice(0, Math.floor(text.length / 2)));
        }
        this.check('append', path);
        await file.append(text);
      },
      sync: async () => {
        this.check('sync', path);
        await file.sync();
      },
      close: () => file.close(),
    };
  }

  readText(path: string): Promise<string | null> {
    return this.real.readText(path);
  }

  async openAppend(path: string): Promise<JournalFile> {
    this.check('openAppend', path);
    return this.wrap(await this.real.openAppend(path), path);
  }

  async create(path: string): Promise<JournalFile> {
    this.created.push(path);
    this.check('create', path);
    return this.wrap(await this.real.create(path), path);
  }

  async rename(from: string, to: string): Promise<void> {
    this.check('rename', to);
    await this.real.rename(from, to);
  }

  unlink(path: string): Promise<void> {
    return this.real.unlink(path);
  }

  syncDir(dir: string): Promise<void> {
    return this.real.syncDir(dir);
  }
}
