// Exporting a stored run (real SQLite): CSV and JSONL of steps, evals and episodes, and a TensorBoard
// event file the `tensorboard` Python package reads back with the same curves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTensorBoardScalars } from '../../../gpu-worker/src/testing/tensorboard-read';
import { episodeInput, newRun, stepPoint, tempStore, type TempStore } from '../store/test-support';
import { allEpisodes, exportRun } from './run-export';

let t: TempStore | null = null;
afterEach(() => {
  t?.cleanup();
  t = null;
});

describe('exportRun', () => {
  it('writes CSV, JSONL and a TensorBoard file of a run', () => {
    t = tempStore();
    const s = t.store;
    s.createRun(newRun('r1', { createdAt: 1_700_000_000_000 }));
    s.putStep('r1', stepPoint(1, { time: 1_700_000_001_000, rewardMean: 0.25 }));
    s.putStep(
      'r1',
      stepPoint(2, { time: 1_700_000_002_000, rewardMean: 0.5, breakCounts: { token_drift: 1, rewritten_history: 2 } }),
    );
    s.putEval('r1', { weightVersion: 2, time: 1_700_000_002_500, episodes: 4, rewardMean: 0.5, successRate: 0.25 });
    s.putEval('r1', { weightVersion: 2, time: 1_700_000_003_000, episodes: 8, rewardMean: 0.6, successRate: 0.5 });
    for (let i = 0; i < 1205; i++)
      s.putEpisode(
        'r1',
        episodeInput(`ep_${String(i).padStart(5, '0')}`, {
          reward: i === 5 ? -1 : i % 2,
          createdAt: 1000 + i,
          taskId: i === 3 ? 'task, "quoted"' : i === 4 ? '=HYPERLINK("http://x.example","y")' : 'task-1',
          ...(i === 5 ? { clientId: '+SUM(A1:A9)' } : {}),
        }),
      );
    expect(allEpisodes(s, 'r1')).toHaveLength(1205);

    const dir = join(t.dir, 'export');
    const files = exportRun(s, 'r1', dir);
    expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual([
      'episodes.csv',
      'episodes.jsonl',
      'evals.csv',
      'evals.jsonl',
      'steps.csv',
      'steps.jsonl',
      'tensorboard/events.out.tfevents.1700000000.workbench.r1',
    ]);
    const steps = readFileSync(join(dir, 'steps.csv'), 'utf8').split('\r\n');
    expect(steps[0]).toContain('breakCounts.rewritten_history');
    expect(steps).toHaveLength(4);
    const episodes = readFileSync(join(dir, 'episodes.csv'), 'utf8').split('\r\n');
    expect(episodes).toHaveLength(1205 + 2);
    expect(episodes[4]).toContain('"task, ""quoted"""');
    // Client-chosen ids are text in a spreadsheet, never formulas; a negative reward stays a number.
    expect(episodes[5]).toContain(`,"'=HYPERLINK(""http://x.example"",""y"")",`);
    expect(episodes[6]).toContain(`,"'+SUM(A1:A9)",`);
    expect(episodes[6]!.split(',')).toContain('-1');
    const lines = readFileSync(join(dir, 'episodes.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[1205 - 1]!)).toMatchObject({ episodeId: 'ep_01204', reward: 0 });

    const tb = readTensorBoardScalars(join(dir, 'tensorboard'));
    expect(tb['reward/mean']).toEqual([
      [1, 0.25],
      [2, 0.5],
    ]);
    expect(tb['merge/breaks/rewritten_history']).toEqual([[2, 2]]);
    expect(tb['merge/compression_ratio']).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(tb['eval/success_rate']).toEqual([[2, 0.5]]);
    expect(tb['time/rollout_s']).toEqual([
      [1, 1.5],
      [2, 1.5],
    ]);
  });

  it('exports only the formats asked for and names an unknown run', () => {
    t = tempStore();
    t.store.createRun(newRun('r2'));
    const files = exportRun(t.store, 'r2', join(t.dir, 'only-csv'), ['csv']);
    expect(files.every((f) => f.endsWith('.csv'))).toBe(true);
    expect(() => exportRun(t!.store, 'nope', join(t!.dir, 'x'))).toThrow(/nope/);
  });
});
