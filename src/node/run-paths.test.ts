// Run ids (src/shared/run-id.ts) and the folders named after them: a bad id is refused with a clear
// error, and nothing is ever written outside the folder's root — also for an id an older database holds.
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIdProblem } from '../shared/run-id';
import { WorkbenchError, workbenchMethods } from '../shared/workbench-api';
import { runPath } from './run-paths';
import { createWorkbench } from './workbench';

const TrainParams = workbenchMethods.trainRewardModel.params;

describe('run ids and the folders named after them', () => {
  it.each(['run-20240101-120000-abcdef', 'r1', 'a.b_c-d', 'A'.repeat(128)])('accepts %s', (id) => {
    expect(runIdProblem(id)).toBeNull();
    expect(runPath('/data/exports', id)).toBe(resolve('/data/exports', id));
  });

  it.each([
    '../../escape-run',
    '..',
    'a..b',
    '.hidden',
    '-flag',
    'a/b',
    'a\\b',
    '/abs',
    '',
    'a b',
    'nul\u0000',
    'A'.repeat(129),
  ])('refuses %j with a clear error', (id) => {
    expect(runIdProblem(id)).toMatch(/is not allowed: a run id is 1-128 letters/);
    expect(() => runPath('/data/exports', id)).toThrow(WorkbenchError);
    expect(() => runPath('/data/exports', id)).toThrow('is not allowed');
  });

  it('keeps a suffixed path inside its root', () => {
    expect(runPath('/data/exports', 'r1', '-20240101-1200')).toBe(join('/data/exports', 'r1-20240101-1200'));
    expect(() => runPath('/data/exports', 'r1', '/../../x')).toThrow('is outside /data/exports');
  });
});

describe('the workbench with a run id an older database holds', () => {
  it('refuses to export or train a reward model into a folder named after it', async () => {
    const base = mkdtempSync(join(tmpdir(), 'aj-runid-'));
    try {
      const dataDir = join(base, 'x', 'data');
      const wb = await createWorkbench({ dataDir, log: () => undefined });
      const db = new Database(join(dataDir, 'workbench.sqlite'));
      db.prepare(
        `INSERT INTO runs (run_id, name, mode, worker_url, model, example, config, created_at) VALUES (?, 'x', 'local', '', 'builtin', NULL, 'null', 1)`,
      ).run('../../escape-run');
      db.close();
      await expect(wb.backend.exportRun({ runId: '../../escape-run' })).rejects.toThrow('is not allowed');
      await expect(wb.backend.trainRewardModel(TrainParams.parse({ runId: '../../escape-run' }))).rejects.toThrow(
        'is not allowed',
      );
      await wb.dispose();
      expect(readdirSync(join(base, 'x'))).toEqual(['data']);
      expect(readdirSync(dataDir).filter((n) => !n.startsWith('workbench.sqlite'))).toEqual(['runs']);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
