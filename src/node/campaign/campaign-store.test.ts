import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrialRow } from '../../shared/campaign/trials';
import { openStore } from '../store/store';
import { CampaignStore } from './campaign-store';

const trial = (number: number, state: TrialRow['state'], value: number | null): TrialRow => ({
  campaignId: 'c1',
  number,
  state,
  params: { lr: 1e-4 * (number + 1) },
  seed: 0,
  source: 'optimizer',
  rationale: null,
  value,
  points: [
    {
      index: 1,
      resource: 1,
      step: 3,
      elapsedS: 30,
      evalSuccess: value,
      evalReward: value,
      evalEpisodes: 8,
      trainReward: 0.2,
    },
  ],
  note: null,
  worker: 'local',
  runDir: null,
  steps: 3,
  startedAt: 1000,
  endedAt: null,
});

describe('campaign store', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('shares the workbench database, and holds trials, curves, decisions and commands across reopening', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-cstore-'));
    dirs.push(dir);
    const path = join(dir, 'workbench.sqlite');
    const wb = openStore(path); // the workbench's own connection migrates the same file
    const s = CampaignStore.open(path);
    s.upsertCampaign({
      campaignId: 'c1',
      name: 'c1',
      question: 'q?',
      spec: { budget: { trials: 4 }, objective: { direction: 'maximize' } },
      dir: '/x',
      createdAt: 5,
    });
    s.setState('c1', 'running', null, 10);
    s.putTrial(trial(0, 'complete', 0.5));
    s.putTrial(trial(1, 'pruned', 0.1));
    s.putTrial({ ...trial(2, 'running', null), points: [] });
    s.putStep('c1', 2, { step: 1, elapsedS: 4, rewardMean: 0.3, successRate: 0.25 });
    s.putStep('c1', 2, { step: 2, elapsedS: 8, rewardMean: 0.4, successRate: null });
    s.heartbeat('c1', 1234, 100, 7);
    const id = s.addDecision('c1', {
      t: 1,
      kind: 'propose',
      status: 'pending',
      rationale: 'try a lower lr',
      payload: { params: { lr: 1e-5 } },
      trial: null,
    });
    expect(s.setDecisionStatus('c1', id, 'approved', ['pending'])).toBe(true);
    expect(s.setDecisionStatus('c1', id, 'rejected', ['pending'])).toBe(false);
    s.addCommand('c1', { kind: 'agent', action: 'pause' }, 2);
    s.addCommand('c1', { kind: 'stop' }, 3);
    s.close();

    const again = CampaignStore.open(path);
    expect(again.takeCommands('c1', 4)).toEqual([{ kind: 'agent', action: 'pause' }, { kind: 'stop' }]);
    expect(again.takeCommands('c1', 5)).toEqual([]);
    expect(again.trials('c1').map((t) => [t.number, t.state, t.value])).toEqual([
      [0, 'complete', 0.5],
      [1, 'pruned', 0.1],
      [2, 'running', null],
    ]);
    expect(again.curves('c1')).toEqual({
      2: [
        { step: 1, elapsedS: 4, rewardMean: 0.3, successRate: 0.25 },
        { step: 2, elapsedS: 8, rewardMean: 0.4, successRate: null },
      ],
    });
    expect(again.decisions('c1')[0]).toMatchObject({
      kind: 'propose',
      status: 'approved',
      payload: { params: { lr: 1e-5 } },
    });
    expect(again.summary('c1', 110)).toMatchObject({
      state: 'running',
      live: true,
      trials: 3,
      budgetTrials: 4,
      completed: 1,
      pruned: 1,
      running: 1,
      bestValue: 0.5,
      wallS: 7,
    });
    expect(again.summary('c1', 100 + 60_000).live).toBe(false);
    expect(again.liveRunner('c1', 110)).toBe(1234);
    expect(() => again.trials('nope')).toThrow(/no campaign/);
    // The workbench's store still works on the same file.
    expect(wb.listRuns(null)).toEqual([]);
    again.close();
    wb.close();
  });
});
