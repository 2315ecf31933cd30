import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveCommits } from '../node/regress/regress-run';
import { openStore } from '../node/store/store';
import { runRegress } from './regress';

const dir = mkdtempSync(join(tmpdir(), 'aj-regress-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('agentjet regress', () => {
  it('resolves --last and A..B oldest first in a real git repository', async () => {
    const repo = join(dir, 'repo');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', repo, ...args], {
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      })
        .toString()
        .trim();
    execFileSync('git', ['init', '-q', repo]);
    for (const n of [1, 2, 3]) {
      writeFileSync(join(repo, 'f'), String(n));
      git('add', 'f');
      git('commit', '-qm', `c${n}`);
    }
    const all = git('rev-list', '--reverse', 'HEAD').split('\n');
    expect(await resolveCommits(repo, { last: 2 })).toEqual(all.slice(1));
    expect(await resolveCommits(repo, { commits: `${all[0]}..HEAD` })).toEqual(all.slice(1));
    await expect(resolveCommits(repo, { commits: 'HEAD..HEAD' })).rejects.toThrow(/no commits/);
  });

  it('shows the stored figures as a table and exits 2 when the newest commit is flagged', async () => {
    const store = openStore(join(dir, 'workbench.sqlite'));
    const base = { subject: 'x | y', bench: 'merge', figure: 'speedup', seed: 0, curve: null, machine: 'm', ranAt: 1 };
    store.putRegressResults([
      { ...base, commit: 'aaaaaaa', commitDate: 1, value: 2 },
      { ...base, commit: 'bbbbbbb', commitDate: 2, value: 2.02 },
      { ...base, commit: 'ccccccc', commitDate: 3, value: 1 },
    ]);
    store.close();
    const lines: string[] = [];
    expect(await runRegress(['show', '--data-dir', dir], (t) => lines.push(t))).toBe(2);
    expect(lines.join('\n')).toContain('### merge: speedup');
    expect(lines.join('\n')).toContain('| ccccccc | x / y | 1 | 1.000 ± 0 | 1.990 … 2.030 | below |');
    await expect(runRegress(['nope'], () => undefined)).rejects.toThrow(/unknown regress command/);
  });
});
