// Wires the research agent into the campaign runner: a turn at the start and after each trial, the
// workbench's agent commands, and approved proposals enqueued on every heartbeat.
import type { AgentSpec } from '../../../shared/campaign/spec';
import type { CampaignStore } from '../campaign-store';
import type { RunnerHooks } from '../campaign-control';
import type { LlmClient } from '../../llm/llm-client';
import { ResearchAgent } from './research-agent';

export function createAgentHooks(
  spec: AgentSpec,
  store: CampaignStore,
  log: (line: string) => void,
  llm?: LlmClient,
): RunnerHooks & { agent: ResearchAgent } {
  const agent = new ResearchAgent({ spec, store, log, ...(llm ? { llm } : {}) });
  let started = false;
  return {
    agent,
    async start(control) {
      agent.restore(control);
      started = true;
      await agent.turn(control, 'the campaign starts');
    },
    async afterTrial(control, trial) {
      if (!started) agent.restore(control);
      started = true;
      await agent.turn(
        control,
        `trial ${trial.number} ended (${trial.state}${trial.value !== null ? `, objective ${trial.value}` : ''})`,
      );
    },
    async onCommand(control, command) {
      agent.command(control, command);
    },
    async tick(control) {
      await agent.tick(control);
    },
  };
}
