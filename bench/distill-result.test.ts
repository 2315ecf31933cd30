import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { armSettings, distillArmDir, finishedArm, writeArmResult, type ArmSettingsInput } from './distill-result';

const settings: ArmSettingsInput = {
  minutes: 15,
  evalEveryMinutes: 2.5,
  evalEpisodes: 100,
  clients: 6,
  batch: 8,
  groupSize: 8,
  lr: 3.5e-4,
  lrEnd: 1e-4,
  threads: 1,
  seed: 1,
  merge: 'tree',
};

function arm(runDir: string) {
  const lines: string[] = [];
  return { lines, o: { ...settings, name: 'rl', runDir, log: (l: string) => lines.push(l) } };
}

const result = (runDir: string, s: ArmSettingsInput) => ({
  name: 'rl',
  curve: [
    { minutes: 0, success: 0.3, episodes: 100 },
    { minutes: 15, success: 0.6, episodes: 100 },
  ],
  updates: 200,
  trainEpisodes: 12_800,
  workerDir: join(runDir, 'worker'),
  settings: armSettings(s),
});

describe('finishedArm', () => {
  it('reads back an arm written with the same settings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-distill-result-'));
    writeArmResult(dir, result(dir, settings));
    const { o, lines } = arm(dir);
    expect(finishedArm(o)).toEqual(result(dir, settings));
    expect(lines).toEqual([]);
  });

  it('is null when there is no result yet', () => {
    const { o } = arm(mkdtempSync(join(tmpdir(), 'aj-distill-result-')));
    expect(finishedArm(o)).toBeNull();
  });

  it('refuses an arm that ran with other settings, naming them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-distill-result-'));
    writeArmResult(dir, result(dir, { ...settings, merge: 'linear', seed: 2 }));
    const { o, lines } = arm(dir);
    expect(finishedArm(o)).toBeNull();
    expect(lines.join('\n')).toMatch(/other settings \(seed, merge\)/);
  });

  it('refuses a file that is not a result (malformed JSON or another shape)', () => {
    for (const text of ['{not json', JSON.stringify({ name: 'rl', curve: [] })]) {
      const dir = mkdtempSync(join(tmpdir(), 'aj-distill-result-'));
      writeFileSync(join(dir, 'result.json'), text);
      const { o, lines } = arm(dir);
      expect(finishedArm(o)).toBeNull();
      expect(lines.join('\n')).toMatch(/is not an arm's result/);
    }
  });
});

describe('distillArmDir', () => {
  const defaults = { batch: 8, lr: 3.5e-4, topK: 0, groupSize: 8, weight: 1, keep: 1 };
  it('is plain `distill` at the defaults', () => {
    expect(distillArmDir(defaults, defaults)).toBe('distill');
  });
  it('names every setting that differs, in a fixed order', () => {
    expect(distillArmDir({ ...defaults, weight: 0.5 }, defaults)).toBe('distill-w0.5');
    expect(distillArmDir({ batch: 32, lr: 1e-3, topK: 16, groupSize: 2, weight: 0.5, keep: 0.5 }, defaults)).toBe(
      'distill-b32-lr0.001-k16-g2-w0.5-keep0.5',
    );
  });
});
