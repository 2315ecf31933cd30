import { describe, expect, it } from 'vitest';
import { parseCampaign } from '../shared/campaign/spec';
import type { TrialRow } from '../shared/campaign/trials';
import { campaignsTable, formatRunnerEvent, trialsTable } from './campaign-report';

const p = parseCampaign({
  name: 'c',
  base: { task: 'calculator-agent' },
  budget: { trials: 3, minutesPerTrial: 2 },
  search: { lr: { float: [1e-5, 1e-3], log: true } },
});
if (!p.ok) throw new Error(p.errors.join());
const spec = p.spec;
const row = (number: number, state: TrialRow['state'], value: number | null, note: string | null = null): TrialRow => ({
  campaignId: 'c',
  number,
  state,
  params: { lr: 3e-4 },
  seed: 0,
  source: 'optimizer',
  rationale: null,
  value,
  points: [],
  note,
  worker: 'local-1',
  runDir: null,
  steps: 7,
  startedAt: 0,
  endedAt: 90_000,
});

describe('campaign terminal output', () => {
  it('one line per trial event, with the cause under a failed trial', () => {
    expect(formatRunnerEvent({ type: 'trial_started', trial: row(0, 'running', null) }, spec)).toBe(
      'trial 0 ▶ lr=3e-4 · seed 0 · optimizer · on local-1',
    );
    expect(
      formatRunnerEvent({ type: 'trial_ended', trial: row(1, 'failed', null, 'the worker exited\nlast line') }, spec),
    ).toBe('trial 1 ■ failed · 7 steps, 1.5 min\n    the worker exited\n    last line');
    expect(
      formatRunnerEvent(
        { type: 'trial_step', number: 0, point: { step: 1, elapsedS: 3, rewardMean: 0, successRate: null } },
        spec,
      ),
    ).toBeNull();
  });

  it('a summary table with the best configuration', () => {
    const t = trialsTable([row(0, 'complete', 0.5), row(1, 'pruned', 0.1)], spec);
    expect(t.split('\n')[0]).toMatch(/^trial\s+state\s+lr\s+seed\s+objective\s+steps\s+minutes\s+worker$/);
    expect(t).toContain('best: lr=3e-4 · objective 0.5 over 1 seed(s)');
    expect(campaignsTable([])).toContain('no campaigns yet');
  });
});
