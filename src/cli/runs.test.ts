// `agentjet runs list|export` on a real SQLite store in a temp data dir.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../node/store/store';
import { newRun, stepPoint } from '../node/store/test-support';
import { tempDir } from '../../gpu-worker/src/testing/workers';
import { runRuns } from './runs';

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('agentjet runs', () => {
  it('lists runs and exports one in the formats asked for', () => {
    const data = tempDir('aj-runs-cli-');
    dir = data;
    mkdirSync(data, { recursive: true });
    const store = openStore(join(data, 'workbench.sqlite'));
    store.createRun(newRun('run-a', { createdAt: 1_700_000_000_000 }));
    store.putStep('run-a', stepPoint(1));
    store.close();
    const lines: string[] = [];
    runRuns(['list', '--data-dir', data], (l) => lines.push(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^run-a {2}2023-11-14T22:13:20.000Z {2}run run-a {2}1 steps {2}0 episodes$/);

    lines.length = 0;
    runRuns(['export', 'run-a', '--data-dir', data, '--formats', 'csv,tensorboard'], (l) => lines.push(l));
    const out = join(data, 'exports', 'run-a');
    expect(lines.at(-1)).toBe(`exported run-a: 4 files in ${out}`);
    expect(readFileSync(join(out, 'steps.csv'), 'utf8')).toContain('rewardMean');
    expect(existsSync(join(out, 'steps.jsonl'))).toBe(false);
    expect(() => runRuns(['export', 'run-a', '--data-dir', data, '--formats', 'xml'])).toThrow(/formats/);
    expect(() => runRuns(['export', '--data-dir', data])).toThrow(/needs a run id/);
    expect(() => runRuns(['export', 'nope', '--data-dir', data])).toThrow(/nope/);
    expect(() => runRuns(['list', '--data-dir', join(data, 'missing')])).toThrow(/no workbench database/);
  });

  it('never exports outside <data>/exports, whatever run id the store holds', () => {
    const root = tempDir('aj-runs-escape-');
    dir = root;
    const data = join(root, 'a', 'b', 'data');
    mkdirSync(data, { recursive: true });
    const store = openStore(join(data, 'workbench.sqlite'));
    expect(() => store.createRun(newRun('../../escape-run'))).toThrow(/run id "..\/..\/escape-run" is not allowed/);
    store.close();
    // A database written by an older version (or by hand) may still hold such an id.
    const db = new Database(join(data, 'workbench.sqlite'));
    db.prepare(
      `INSERT INTO runs (run_id, name, mode, worker_url, model, example, config, created_at) VALUES (?, 'x', 'local', '', 'builtin', NULL, 'null', 1)`,
    ).run('../../escape-run');
    db.close();
    expect(() => runRuns(['export', '../../escape-run', '--data-dir', data])).toThrow(
      /run id "..\/..\/escape-run" is not allowed/,
    );
    expect(readdirSync(join(root, 'a'))).toEqual(['b']);
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['data']);
    expect(existsSync(join(data, 'exports'))).toBe(false);
  });
});
