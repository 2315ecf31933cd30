// The workbench's data folder is private: the runs folder 0700 (an existing one too) and the
// SQLite database with its WAL files 0600.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkbench } from './workbench';

const mode = (p: string): number => statSync(p).mode & 0o777;
const base = mkdtempSync(join(tmpdir(), 'aj-wbdir-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('workbench data folder', () => {
  it('keeps workbench.sqlite and the run folders private', async () => {
    const dataDir = join(base, 'data');
    mkdirSync(join(dataDir, 'runs'), { recursive: true });
    chmodSync(join(dataDir, 'runs'), 0o755);
    const wb = await createWorkbench({ dataDir, log: () => undefined });
    await wb.backend.runs({});
    const db = join(dataDir, 'workbench.sqlite');
    expect(mode(join(dataDir, 'runs'))).toBe(0o700);
    for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) expect(mode(f), f).toBe(0o600);
    expect(existsSync(`${db}-wal`)).toBe(true);
    await wb.dispose();
  });
});
