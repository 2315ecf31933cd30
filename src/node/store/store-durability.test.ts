// Issue 6: "Events from the worker are persisted as they arrive, so an app crash loses at most
// the last second". A real process commits a batch, is SIGKILLed mid-way through the next one,
// and a reopened store has the first batch, none of the second, and the run still open.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './store';
import { tempStore, type TempStore } from './test-support';

const REPO_ROOT = resolve(__dirname, '../../..');

function runCrashWriter(path: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'testing/crash-writer.ts'), path], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', fail);
    child.once('exit', (code, signal) => done({ code, signal, out }));
  });
}

describe('store durability', () => {
  let temp: TempStore | null = null;
  afterEach(() => {
    temp?.cleanup();
    temp = null;
  });

  it('keeps every committed batch when the process is killed, and nothing of the batch in flight', async () => {
    temp = tempStore();
    temp.store.close();
    const result = await runCrashWriter(temp.path);
    expect(result.signal, result.out).toBe('SIGKILL');
    expect(result.out).toContain('committed');
    expect(result.out).not.toContain('not reached');

    const store = openStore(temp.path);
    try {
      expect(store.getRun('crash').endedAt).toBeNull();
      expect(store.metrics('crash').steps.map((s) => s.step)).toEqual([1, 2, 3]);
      const page = store.episodesPage('crash', {}, 0, 100, 'oldest');
      expect(page.total).toBe(50);
      expect(page.rows.some((r) => r.episodeId === 'uncommitted')).toBe(false);
      expect(store.recentLogs('crash', { kind: 'worker' }, 10).map((l) => l.line)).toEqual(['committed']);
      expect(store.listRuns('crash')[0]).toMatchObject({ runId: 'crash', live: true, steps: 3, episodes: 50 });
    } finally {
      store.close();
    }
  });
});
