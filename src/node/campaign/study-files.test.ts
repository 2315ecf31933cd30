import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { studyPlan } from '../../shared/campaign/study-spec';
import { loadRunFile, loadStudyFile } from './study-files';

describe('resources/studies', () => {
  const dir = join(import.meta.dirname, '../../../resources/studies');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  it('ships the five studies and their follow-ups (staleness, the merge default on a cocktail)', () => {
    expect(files.sort()).toEqual([
      'cocktail-vs-specialists.yaml',
      'framework-transparency.yaml',
      'merge-default.yaml',
      'merging-quality.yaml',
      'seed-robustness.yaml',
      'separate-vs-shared.yaml',
      'staleness.yaml',
    ]);
  });
  it.each(files)('%s parses and fits an hour at its defaults', (f) => {
    const s = loadStudyFile(join(dir, f)).spec;
    expect(loadRunFile(join(dir, f)).kind).toBe('study');
    const evalMinutes = 1; // a final evaluation and the start-up per trial, generously
    const total = studyPlan(s).length * (s.budget.minutes + evalMinutes);
    expect(total).toBeLessThanOrEqual(60);
  });
});
