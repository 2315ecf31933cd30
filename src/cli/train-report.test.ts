import { describe, expect, it } from 'vitest';
import { parseFlags } from './flags';
import { parseExample } from './train';
import { TrainOptionsSchema } from './train-options';
import { formatProgress, formatStep, summaryTable, type StepRow } from './train-report';

const row: StepRow = {
  step: 1,
  weightVersion: 1,
  episodes: 8,
  rewardMean: 0.25,
  successRate: 0.25,
  mergeRatio: 1.875,
  samples: 4,
  trainSeconds: 0.3,
  stepSeconds: 1.04,
  loss: 0.1,
};

describe('agentjet train output and options', () => {
  it('formats a step line, the progress bar and the summary table', () => {
    expect(formatStep(row, 1, 2)).toBe(
      'step 1/2 (v1) · reward 0.250 · success 25.0% · merge ×1.88 · 8 episodes · 1.0 s (train 0.3 s)',
    );
    expect(formatProgress({ strategy: 'C2', ready: false, current: 1, target: 4, unit: 'tasks', detail: '' }, 8)).toBe(
      '  batch [##......] 1/4 tasks',
    );
    const table = summaryTable([row, { ...row, successRate: null, mergeRatio: null }]).split('\n');
    expect(table).toHaveLength(4);
    expect(table[3]).toMatch(/–/);
  });

  it('parses the options with defaults and refuses unknown ones', () => {
    expect(TrainOptionsSchema.parse(parseFlags(['--steps', '3', '--client', 'python']))).toMatchObject({
      clients: 2,
      steps: 3,
      client: 'python',
      evalEvery: 0,
      port: 0,
    });
    expect(TrainOptionsSchema.safeParse(parseFlags(['--client', 'rust'])).success).toBe(false);
    expect(TrainOptionsSchema.safeParse(parseFlags(['--bogus', '1'])).success).toBe(false);
    expect(parseExample('calculator-agent')).toBe('calculator-agent');
    expect(parseExample('cocktail')).toBe('cocktail');
    expect(TrainOptionsSchema.parse(parseFlags(['--mix', '0.25'])).mix).toBe(0.25);
    expect(TrainOptionsSchema.safeParse(parseFlags(['--mix', '2'])).success).toBe(false);
    expect(() => parseExample('nope')).toThrow(/name an example/);
  });
});
