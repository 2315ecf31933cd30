// What the research agent (agent/) sees of a running campaign: the control it may use and the hooks
// the runner (campaign-runner.ts) calls it by.
import type { CampaignCommand } from '../../shared/campaign/api';
import type { Params } from '../../shared/campaign/space';
import type { CampaignSpec } from '../../shared/campaign/spec';
import type { TrialRow } from '../../shared/campaign/trials';

/** What the research agent (and tests) may do to a running campaign. */
export interface CampaignControl {
  readonly spec: CampaignSpec;
  readonly campaignId: string;
  trials(): TrialRow[];
  /** Queues a configuration (validated by the caller) to run next, with who chose it and why. */
  enqueue(params: Params, source: 'agent', rationale: string): Promise<void>;
  stopTrial(number: number, reason: string): boolean;
  running(): number[];
}

export interface RunnerHooks {
  /** Once the study is open, before the first trial (the agent's first turn). */
  start?(control: CampaignControl): Promise<void>;
  /** Every heartbeat (approved proposals). */
  tick?(control: CampaignControl): Promise<void>;
  /** After each trial ends (the agent's turn). */
  afterTrial?(control: CampaignControl, trial: TrialRow): Promise<void>;
  onCommand?(control: CampaignControl, command: CampaignCommand): Promise<void>;
  dispose?(): Promise<void>;
}
