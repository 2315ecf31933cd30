// (work in progress) The research agent's hooks into the campaign runner.
import type { AgentSpec } from '../../../shared/campaign/spec';
import type { CampaignStore } from '../campaign-store';
import type { RunnerHooks } from '../campaign-runner';

export function createAgentHooks(_spec: AgentSpec, _store: CampaignStore, _log: (line: string) => void): RunnerHooks {
  return {};
}
