import { describe, expect, it } from 'vitest';
import type { AgentState, CampaignSummary } from '../../../../shared/campaign/api';
import { agentStatusText, campaignDetailText, campaignListText } from './campaign-view';

const summary: CampaignSummary = {
  campaignId: 'c1',
  name: 'lr sweep',
  question: '',
  state: 'running',
  dir: '/tmp/c1',
  createdAt: 0,
  endedAt: null,
  live: true,
  trials: 3,
  budgetTrials: 8,
  running: 1,
  completed: 1,
  pruned: 1,
  failed: 0,
  bestValue: 0.8125,
  wallS: 90,
  note: null,
};

describe('campaign display text', () => {
  it('a list line, with a dash before any best value', () => {
    expect(campaignListText(summary)).toBe('running · 3/8 trials · 1 pruned · 0 failed · best 0.813');
    expect(campaignListText({ ...summary, bestValue: null })).toBe(
      'running · 3/8 trials · 1 pruned · 0 failed · best —',
    );
  });

  it('a detail line with wall and compute minutes', () => {
    expect(campaignDetailText(summary, 600)).toBe(
      '3/8 trials · 1 completed · 1 pruned · 0 failed · wall 1.5 min · compute 10.0 min',
    );
  });

  it("the agent's status, its note only when it has one", () => {
    const agent: AgentState = {
      status: 'active',
      mode: 'ask',
      model: 'm',
      tokensUsed: 120,
      trialsProposed: 2,
      note: null,
    };
    expect(agentStatusText(agent)).toBe('active · ask before running · m · 120 tokens · 2 proposed');
    expect(agentStatusText({ ...agent, mode: 'auto', status: 'paused', note: 'budget' })).toBe(
      'paused · auto · m · 120 tokens · 2 proposed · budget',
    );
  });
});
