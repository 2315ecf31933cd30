// The research agent against a fake chat-completions server (scripted tool calls) and a real store:
// a proposal outside the search space is refused and the reason fed back, the corrected one is
// queued; ask mode waits for approval; stop/analysis are logged; limits and the panel's controls hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCampaign, type CampaignSpec } from '../../../shared/campaign/spec';
import type { TrialRow } from '../../../shared/campaign/trials';
import { LlmClient } from '../../llm/llm-client';
import { FakeChatServer } from '../../llm/testing/fake-chat-server';
import type { CampaignControl } from '../campaign-control';
import { CampaignStore } from '../campaign-store';
import { ResearchAgent } from './research-agent';

const parsed = parseCampaign({
  name: 'agent-test',
  question: 'lr?',
  base: { task: 'calculator-agent' },
  budget: { trials: 8, minutesPerTrial: 1 },
  search: { lr: { float: [1e-5, 1e-3], log: true }, groupSize: { choice: [2, 4] } },
  agent: { endpoint: 'http://127.0.0.1:1/v1', model: 'fake-model', maxTrials: 2 },
});
if (!parsed.ok) throw new Error(parsed.errors.join());
const SPEC: CampaignSpec = parsed.spec;

const row = (number: number, state: TrialRow['state'], value: number | null): TrialRow => ({
  campaignId: 'agent-test',
  number,
  state,
  params: { lr: 1e-4, groupSize: 2 },
  seed: 0,
  source: 'optimizer',
  rationale: null,
  value,
  points: [
    {
      index: 1,
      resource: 1,
      step: 4,
      elapsedS: 30,
      evalSuccess: value,
      evalReward: value,
      evalEpisodes: 8,
      trainReward: 0.3,
    },
  ],
  note: null,
  worker: 'local',
  runDir: null,
  steps: 4,
  startedAt: 0,
  endedAt: 1,
});

/** A control over an in-memory list (the contract the runner implements), recording what the agent did. */
class FakeControl implements CampaignControl {
  readonly spec = SPEC;
  readonly campaignId = 'agent-test';
  readonly queued: { params: Record<string, unknown>; rationale: string }[] = [];
  readonly stopped: number[] = [];
  constructor(private readonly rows: TrialRow[]) {}
  trials(): TrialRow[] {
    return this.rows;
  }
  async enqueue(params: Record<string, string | number | boolean>, _source: 'agent', rationale: string): Promise<void> {
    this.queued.push({ params, rationale });
  }
  stopTrial(n: number): boolean {
    if (!this.rows.some((r) => r.number === n && r.state === 'running')) return false;
    this.stopped.push(n);
    return true;
  }
  running(): number[] {
    return this.rows.filter((r) => r.state === 'running').map((r) => r.number);
  }
}

describe('research agent', () => {
  let dir: string;
  let store: CampaignStore;
  let fake: FakeChatServer | null = null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'aj-agent-'));
    store = CampaignStore.open(join(dir, 'wb.sqlite'));
    store.upsertCampaign({
      campaignId: 'agent-test',
      name: 'agent-test',
      question: 'lr?',
      spec: SPEC,
      dir,
      createdAt: 0,
    });
    for (const r of [row(0, 'complete', 0.4), row(1, 'running', null)]) store.putTrial(r);
  });
  afterEach(async () => {
    await fake?.close();
    fake = null;
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const agentWith = async (
    script: Parameters<typeof FakeChatServer.start>[0],
    spec = SPEC.agent!,
  ): Promise<ResearchAgent> => {
    await fake?.close();
    fake = await FakeChatServer.start(script);
    return new ResearchAgent({
      spec,
      store,
      log: () => undefined,
      llm: new LlmClient({ endpoint: fake.url, apiKey: '', model: 'fake-model' }, { maxRetries: 0 }),
    });
  };

  it('refuses a proposal outside the search space, feeds the reason back, and queues the corrected one', async () => {
    const control = new FakeControl(store.trials('agent-test'));
    const agent = await agentWith([
      { toolCalls: [{ name: 'list_trials', arguments: {} }] },
      {
        toolCalls: [
          {
            name: 'propose_trials',
            arguments: { trials: [{ params: { lr: 0.5, groupSize: 3 }, rationale: 'much higher lr' }] },
          },
        ],
      },
      (req) => {
        const fedBack = JSON.stringify(req.messages.at(-1));
        expect(fedBack).toContain('lr: 0.5 is outside');
        expect(fedBack).toContain('groupSize: 3 is outside');
        return {
          toolCalls: [
            {
              name: 'propose_trials',
              arguments: {
                trials: [
                  {
                    params: { lr: 5e-4, groupSize: 4 },
                    rationale: 'test whether a 5x higher lr with larger groups learns faster',
                  },
                ],
              },
            },
          ],
        };
      },
      {
        toolCalls: [
          { name: 'stop_trial', arguments: { trial: 1, rationale: 'flat curve' } },
          { name: 'write_analysis', arguments: { text: 'Trial 0 reached 0.4; higher lr is under test.' } },
        ],
      },
      { toolCalls: [{ name: 'finish_turn', arguments: { note: 'waiting for trial 2' } }], totalTokens: 50 },
    ]);
    agent.restore(control);
    await agent.turn(control, 'trial 0 ended');
    expect(fake!.served).toBe(5);
    expect(String(fake!.requests[1]!.messages.at(-1)?.content)).toContain('"number":0');
    expect(control.queued).toEqual([
      { params: { lr: 5e-4, groupSize: 4 }, rationale: 'test whether a 5x higher lr with larger groups learns faster' },
    ]);
    expect(control.stopped).toEqual([1]);
    expect(store.extras('agent-test').analysis).toContain('Trial 0 reached 0.4');
    const decisions = store.decisions('agent-test').map((d) => [d.kind, d.status]);
    expect(decisions).toEqual([
      ['propose', 'refused'],
      ['propose', 'enqueued'],
      ['stop_trial', 'done'],
      ['analysis', 'done'],
      ['note', 'done'],
    ]);
    expect(store.extras('agent-test').agent).toMatchObject({ status: 'active', tokensUsed: 450, trialsProposed: 1 });
  });

  it('in ask mode a proposal waits for approval, then runs; a reject does not', async () => {
    const control = new FakeControl(store.trials('agent-test'));
    const agent = await agentWith(
      [
        {
          toolCalls: [
            {
              name: 'propose_trials',
              arguments: {
                trials: [
                  { params: { lr: 2e-4, groupSize: 2 }, rationale: 'lower lr' },
                  { params: { lr: 3e-4, groupSize: 4 }, rationale: 'bigger groups' },
                ],
              },
            },
          ],
        },
        { content: 'done for now' },
      ],
      { ...SPEC.agent!, mode: 'ask' },
    );
    agent.restore(control);
    await agent.turn(control, 'start');
    const pending = store.decisions('agent-test').filter((d) => d.status === 'pending');
    expect(pending, JSON.stringify(store.decisions('agent-test'))).toHaveLength(2);
    await agent.tick(control);
    expect(control.queued).toEqual([]);
    store.setDecisionStatus('agent-test', pending[0]!.id, 'approved', ['pending']);
    store.setDecisionStatus('agent-test', pending[1]!.id, 'rejected', ['pending']);
    await agent.tick(control);
    await agent.tick(control);
    expect(control.queued.map((q) => q.params)).toEqual([{ lr: 2e-4, groupSize: 2 }]);
    expect(store.decisions('agent-test').map((d) => d.status)).toEqual(['enqueued', 'rejected', 'done']);
    expect(control.queued[0]!.rationale).toBe('lower lr');
  });

  it('stops at its limits, and a paused or handed-back agent takes no turn', async () => {
    const control = new FakeControl(store.trials('agent-test'));
    const agent = await agentWith([
      {
        toolCalls: [
          {
            name: 'propose_trials',
            arguments: {
              trials: [
                { params: { lr: 2e-4, groupSize: 2 }, rationale: 'lower lr' },
                { params: { lr: 3e-4, groupSize: 2 }, rationale: 'bigger groups' },
                { params: { lr: 4e-4, groupSize: 2 }, rationale: 'even higher' },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'propose_trials', arguments: '{"trials": [ broken' }] },
    ]);
    agent.restore(control);
    await agent.turn(control, 'start');
    // Two fit the limit of 2; the third is refused and the agent stops for the limit.
    expect(control.queued).toHaveLength(2);
    expect(agent.status).toMatchObject({ status: 'limit_reached', trialsProposed: 2 });
    const kinds = store.decisions('agent-test').map((d) => `${d.kind}:${d.status}`);
    expect(kinds).toEqual(['propose:enqueued', 'propose:enqueued', 'propose:refused', 'limit:done']);
    await agent.turn(control, 'again');
    expect(fake!.served).toBe(1);

    const fresh = await agentWith([{ content: 'never' }]);
    store.setAgent('agent-test', null);
    fresh.restore(control);
    fresh.command(control, { kind: 'agent', action: 'pause' });
    await fresh.turn(control, 'paused');
    expect(fake!.served).toBe(0);
    fresh.command(control, { kind: 'agent', action: 'hand_back' });
    expect(store.extras('agent-test').agent?.status).toBe('handed_back');
  });
});
