import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../node/store/store';
import { episodeInput, newRun } from '../node/store/test-support';
import { runLabels, runRewardModel } from './rewards';

const dir = mkdtempSync(join(tmpdir(), 'aj-cli-rw-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('agentjet labels / reward-model', () => {
  it('imports, lists and exports labels of a run in the workbench database', async () => {
    const store = openStore(join(dir, 'workbench.sqlite'));
    store.createRun(newRun('r1'));
    store.putEpisode('r1', episodeInput('e1', { taskId: 't' }));
    store.putEpisode('r1', episodeInput('e2', { taskId: 't' }));
    store.close();
    const file = join(dir, 'in.jsonl');
    writeFileSync(
      file,
      '{"episodeId":"e1","label":"good"}\n{"episodeId":"e1","otherEpisodeId":"e2","label":"prefer","author":"bo"}\n',
    );
    const out: string[] = [];
    await runLabels('import', ['--run', 'r1', '--file', file, '--data-dir', dir, '--author', 'ana'], (l) =>
      out.push(l),
    );
    await runLabels('list', ['--run', 'r1', '--data-dir', dir], (l) => out.push(l));
    await runLabels('export', ['--run', 'r1', '--data-dir', dir, '--file', join(dir, 'out.jsonl')], (l) => out.push(l));
    expect(out).toEqual([
      'imported 2 labels into r1 (0 replaced earlier ones)',
      'r1: 1 good, 0 bad, 1 preferences on 2 episodes',
      'authors (2):',
      '  ana',
      '  bo',
      `wrote 2 labels to ${join(dir, 'out.jsonl')}`,
    ]);
    expect(
      readFileSync(join(dir, 'out.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).label),
    ).toEqual(['good', 'prefer']);
    await runRewardModel('list', ['--run', 'r1', '--data-dir', dir], (l) => out.push(l));
    expect(out.at(-1)).toBe('r1 has no reward model');
  });

  it('lists an author with a line break quoted on its own line, and refuses a bad createdAt with nothing imported', async () => {
    const store = openStore(join(dir, 'workbench.sqlite'));
    store.createRun(newRun('r2'));
    store.putEpisode('r2', episodeInput('e1', { taskId: 't' }));
    store.close();
    const file = join(dir, 'in2.jsonl');
    writeFileSync(file, '{"episodeId":"e1","label":"good","author":"eve\\nr2: 99 good"}\n');
    const out: string[] = [];
    await runLabels('import', ['--run', 'r2', '--file', file, '--data-dir', dir], (l) => out.push(l));
    await runLabels('list', ['--run', 'r2', '--data-dir', dir], (l) => out.push(l));
    expect(out.slice(1)).toEqual([
      'r2: 1 good, 0 bad, 0 preferences on 1 episodes',
      'authors (1):',
      '  "eve\\nr2: 99 good"',
    ]);
    writeFileSync(file, '{"episodeId":"e1","label":"bad"}\n{"episodeId":"e1","label":"bad","createdAt":1e300}\n');
    await expect(runLabels('import', ['--run', 'r2', '--file', file, '--data-dir', dir])).rejects.toThrow(
      'line 2: createdAt: milliseconds since 1970 between 2000-01-01 and 2200-01-01',
    );
    out.length = 0;
    await runLabels('list', ['--run', 'r2', '--data-dir', dir], (l) => out.push(l));
    expect(out[0]).toBe('r2: 1 good, 0 bad, 0 preferences on 1 episodes');
  });

  it('refuses bad usage with the help text', async () => {
    await expect(runLabels('frobnicate', [])).rejects.toThrow('import, export or list');
    await expect(runLabels('import', ['--run', 'r1'])).rejects.toThrow('file');
    await expect(runRewardModel('train', ['--run', 'r1', '--data-dir', dir, '--loss', 'magic'])).rejects.toThrow(
      'loss',
    );
    await expect(runRewardModel('train', ['--run', 'r1', '--data-dir', dir])).rejects.toThrow('no usable labels');
  });
});
