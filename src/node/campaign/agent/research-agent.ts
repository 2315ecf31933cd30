// The research agent: after each trial (and once at the start) it gets a turn with an LLM that
// works through tools over the campaign (agent-tools.ts). Proposals are checked against the search
// space; in `ask` mode they wait for a person's approval in the Campaigns panel. Hard limits —
// trials proposed, wall time, LLM tokens — end its part; a person can pause it or hand control
// back to the optimiser. Every decision, with its rationale, goes to the store's decision log.
import type { AgentState, CampaignCommand, Decision } from '../../../shared/campaign/api';
import { metricOf } from '../../../shared/campaign/objective';
import { checkParams, type Params } from '../../../shared/campaign/space';
import type { AgentSpec } from '../../../shared/campaign/spec';
import { countStates, type TrialRow } from '../../../shared/campaign/trials';
import { LlmClient, type LlmMessage, type ToolCallRequest } from '../../llm/llm-client';
import type { CampaignControl } from '../campaign-control';
import type { CampaignStore } from '../campaign-store';
import { AGENT_TOOLS, describeSpace, toolArgs } from './agent-tools';

const SYSTEM = `You are a careful ML research assistant steering a hyper-parameter campaign for agentic RL training.
Trials train a policy for a few minutes each and are scored by a held-out objective. An optimiser (Optuna) also proposes
trials; your proposals run first. Use the tools: read the trials and curves, then propose configurations that test a clear
hypothesis (say which in the rationale), stop trials that are clearly failing, and keep the analysis up to date. Every
parameter of the search space must be set and lie inside its domain. End the turn with finish_turn.`;

export interface AgentDeps {
  spec: AgentSpec;
  store: CampaignStore;
  llm?: LlmClient;
  log: (line: string) => void;
  now?: () => number;
}

export class ResearchAgent {
  private state: AgentState;
  private readonly startedAt: number;
  private readonly llm: LlmClient;
  private readonly now: () => number;
  private turnRunning: Promise<void> | null = null;

  constructor(private readonly d: AgentDeps) {
    this.now = d.now ?? Date.now;
    this.startedAt = this.now();
    this.llm = d.llm ?? new LlmClient({ endpoint: d.spec.endpoint, apiKey: d.spec.apiKey, model: d.spec.model });
    this.state = {
      status: 'active',
      mode: d.spec.mode,
      model: d.spec.model,
      tokensUsed: 0,
      trialsProposed: 0,
      note: null,
    };
  }

  get status(): AgentState {
    return this.state;
  }

  /** Restores what an earlier session of the campaign used (limits hold across resumes). */
  restore(c: CampaignControl): void {
    const prior = this.d.store.extras(c.campaignId).agent;
    if (prior)
      this.state = {
        ...prior,
        mode: prior.mode,
        status:
          prior.status === 'limit_reached' || prior.status === 'handed_back' || prior.status === 'paused'
            ? prior.status
            : 'active',
      };
    this.save(c);
  }

  private save(c: CampaignControl): void {
    this.d.store.setAgent(c.campaignId, this.state);
  }

  private decide(c: CampaignControl, d: Omit<Decision, 'id' | 't'>): number {
    return this.d.store.addDecision(c.campaignId, { t: this.now(), ...d });
  }

  /** A turn, unless paused, handed back or out of limits; one at a time. */
  async turn(c: CampaignControl, why: string): Promise<void> {
    if (this.turnRunning) return this.turnRunning;
    this.turnRunning = this.runTurn(c, why).finally(() => (this.turnRunning = null));
    return this.turnRunning;
  }

  private limitReached(): string | null {
    const s = this.d.spec;
    if (this.state.tokensUsed >= s.maxTokens) return `token budget of ${s.maxTokens} used`;
    if ((this.now() - this.startedAt) / 60_000 >= s.maxMinutes) return `wall-time limit of ${s.maxMinutes} min reached`;
    if (this.state.trialsProposed >= s.maxTrials) return `proposal limit of ${s.maxTrials} trials reached`;
    return null;
  }

  private stopForLimit(c: CampaignControl, reason: string): void {
    this.state = { ...this.state, status: 'limit_reached', note: reason };
    this.decide(c, {
      kind: 'limit',
      status: 'done',
      rationale: `agent stopped: ${reason}; the optimiser goes on alone`,
      payload: {},
      trial: null,
    });
    this.save(c);
  }

  private async runTurn(c: CampaignControl, why: string): Promise<void> {
    if (this.state.status !== 'active') return;
    const limit = this.limitReached();
    if (limit) return this.stopForLimit(c, limit);
    const messages: LlmMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: this.briefing(c, why) },
    ];
    for (let calls = 0; calls < this.d.spec.maxToolCalls;) {
      const reply = await this.llm.chat(messages, AGENT_TOOLS);
      this.state = { ...this.state, tokensUsed: this.state.tokensUsed + reply.tokens };
      this.save(c);
      messages.push(reply.message);
      if (reply.calls.length === 0) {
        if (reply.content?.trim())
          this.decide(c, {
            kind: 'note',
            status: 'done',
            rationale: reply.content.trim().slice(0, 4000),
            payload: {},
            trial: null,
          });
        return;
      }
      let finished = false;
      for (const call of reply.calls) {
        calls++;
        const result = await this.execute(c, call);
        if (call.name === 'finish_turn' && call.parsed.ok) finished = true;
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
      }
      const after = this.limitReached();
      if (after) return this.stopForLimit(c, after);
      if (finished || this.state.status !== 'active') return;
    }
    this.decide(c, {
      kind: 'note',
      status: 'done',
      rationale: `turn cut off after ${this.d.spec.maxToolCalls} tool calls`,
      payload: {},
      trial: null,
    });
  }

  private briefing(c: CampaignControl, why: string): string {
    const counts = countStates(c.trials());
    const recent = this.d.store
      .decisions(c.campaignId)
      .slice(-10)
      .map((d) => `${d.kind} (${d.status}): ${d.rationale}`);
    const proposalsLeft = this.d.spec.maxTrials - this.state.trialsProposed;
    const tokensLeft = Math.max(0, this.d.spec.maxTokens - this.state.tokensUsed);
    const mode =
      this.state.mode === 'ask'
        ? 'a person approves each proposal before it runs'
        : 'proposals run as soon as a worker is free';
    return [
      `Campaign ${c.spec.name}: ${c.spec.question || '(no question given)'}`,
      `Now: ${why}. Trials: ${counts.trials} of ${c.spec.budget.trials} (${counts.completed} completed,` +
        ` ${counts.pruned} pruned, ${counts.failed} failed, ${counts.running} running).`,
      `Your limits left: ${proposalsLeft} proposals, ${tokensLeft} tokens. Mode: ${mode}.`,
      recent.length ? `Your recent decisions:\n${recent.join('\n')}` : 'You have made no decisions yet.',
    ].join('\n');
  }

  private async execute(c: CampaignControl, call: ToolCallRequest): Promise<unknown> {
    if (!call.parsed.ok) {
      this.decide(c, {
        kind: 'error',
        status: 'refused',
        rationale: `${call.name}: ${call.parsed.error}`,
        payload: { arguments: call.raw.slice(0, 2000) },
        trial: null,
      });
      return { error: call.parsed.error };
    }
    const a = call.parsed.value;
    switch (call.name) {
      case 'list_trials':
        return {
          trials: c
            .trials()
            .filter((t) => t.state !== 'interrupted')
            .map(brief),
        };
      case 'get_curve':
        return this.curve(c, toolArgs.get_curve.parse(a).trial);
      case 'search_space':
        return this.searchSpace(c);
      case 'propose_trials':
        return this.propose(c, toolArgs.propose_trials.parse(a).trials);
      case 'stop_trial': {
        const { trial, rationale } = toolArgs.stop_trial.parse(a);
        const ok = c.stopTrial(trial, `stopped by the research agent: ${rationale}`);
        this.decide(c, {
          kind: 'stop_trial',
          status: ok ? 'done' : 'refused',
          rationale,
          payload: ok ? {} : { error: 'not running' },
          trial,
        });
        return ok ? { stopped: trial } : { error: `trial ${trial} is not running` };
      }
      case 'write_analysis': {
        const { text } = toolArgs.write_analysis.parse(a);
        this.d.store.setAnalysis(c.campaignId, text);
        this.decide(c, {
          kind: 'analysis',
          status: 'done',
          rationale: text.slice(0, 300),
          payload: { length: text.length },
          trial: null,
        });
        return { written: text.length };
      }
      case 'finish_turn': {
        const { note } = toolArgs.finish_turn.parse(a);
        if (note) this.decide(c, { kind: 'note', status: 'done', rationale: note, payload: {}, trial: null });
        return { ok: true };
      }
      default:
        return { error: `unknown tool ${call.name}` };
    }
  }

  /** A trial's objective points and its training reward curve (at most ~50 points). */
  private curve(c: CampaignControl, trial: number): unknown {
    const t = c.trials().find((x) => x.number === trial);
    if (!t) return { error: `no trial ${trial}` };
    const steps = this.d.store.curves(c.campaignId)[String(trial)] ?? [];
    const stride = Math.max(1, Math.ceil(steps.length / 50));
    return {
      trial,
      points: t.points.map((p) => ({
        index: p.index,
        step: p.step,
        minutes: +(p.elapsedS / 60).toFixed(2),
        value: metricOf(p, c.spec.objective.metric),
      })),
      trainReward: steps.filter((_, i) => i % stride === 0).map((p) => [p.step, +p.rewardMean.toFixed(4)]),
    };
  }

  /** The search space, the objective and what is left of the budget and the agent's proposals. */
  private searchSpace(c: CampaignControl): unknown {
    const counts = countStates(c.trials());
    return {
      space: describeSpace(c.spec.search),
      objective: c.spec.objective,
      trialsLeft: c.spec.budget.trials - counts.trials,
      minutesPerTrial: c.spec.budget.minutesPerTrial,
      seeds: c.spec.seeds,
      proposalsLeft: this.d.spec.maxTrials - this.state.trialsProposed,
    };
  }

  private async propose(
    c: CampaignControl,
    trials: { params: Record<string, string | number | boolean>; rationale: string }[],
  ): Promise<unknown> {
    const results = [];
    for (const t of trials) {
      const errors = checkParams(c.spec.search, t.params);
      if (this.state.trialsProposed >= this.d.spec.maxTrials)
        errors.push(`the agent's proposal limit (${this.d.spec.maxTrials}) is reached`);
      if (errors.length > 0) {
        this.decide(c, {
          kind: 'propose',
          status: 'refused',
          rationale: t.rationale,
          payload: { params: t.params, errors },
          trial: null,
        });
        results.push({ params: t.params, refused: errors });
        continue;
      }
      this.state = { ...this.state, trialsProposed: this.state.trialsProposed + 1 };
      if (this.state.mode === 'ask') {
        const id = this.decide(c, {
          kind: 'propose',
          status: 'pending',
          rationale: t.rationale,
          payload: { params: t.params },
          trial: null,
        });
        results.push({ params: t.params, waitingForApproval: id });
      } else {
        await c.enqueue(t.params as Params, 'agent', t.rationale);
        this.decide(c, {
          kind: 'propose',
          status: 'enqueued',
          rationale: t.rationale,
          payload: { params: t.params },
          trial: null,
        });
        results.push({ params: t.params, queued: true });
      }
    }
    this.save(c);
    return { results };
  }

  /** Enqueues proposals a person approved (ask mode); called every few seconds. */
  async tick(c: CampaignControl): Promise<void> {
    for (const d of this.d.store.decisions(c.campaignId)) {
      if (d.kind !== 'propose' || d.status !== 'approved') continue;
      const params = d.payload['params'];
      if (typeof params !== 'object' || params === null) continue;
      const p = params as Record<string, string | number | boolean>;
      if (checkParams(c.spec.search, p).length > 0) continue;
      if (this.d.store.setDecisionStatus(c.campaignId, d.id, 'enqueued', ['approved']))
        await c.enqueue(p, 'agent', d.rationale);
    }
  }

  /** The panel's controls: pause, resume, hand back to the optimiser, ask / auto mode. */
  command(c: CampaignControl, cmd: CampaignCommand): void {
    if (cmd.kind !== 'agent') return;
    const was = this.state;
    if (cmd.action === 'pause' && was.status === 'active') this.state = { ...was, status: 'paused' };
    else if (cmd.action === 'resume' && was.status === 'paused') this.state = { ...was, status: 'active' };
    else if (cmd.action === 'hand_back')
      this.state = { ...was, status: 'handed_back', note: 'control handed back to the optimiser' };
    else if (cmd.action === 'ask' || cmd.action === 'auto') this.state = { ...was, mode: cmd.action };
    if (this.state !== was) {
      this.decide(c, {
        kind: 'control',
        status: 'done',
        rationale: `researcher: ${cmd.action}`,
        payload: { status: this.state.status, mode: this.state.mode },
        trial: null,
      });
      this.save(c);
    }
  }
}

function brief(t: TrialRow): Record<string, unknown> {
  return {
    number: t.number,
    state: t.state,
    params: t.params,
    seed: t.seed,
    source: t.source,
    objective: t.value,
    steps: t.steps,
    note: t.note?.slice(0, 300) ?? null,
  };
}
