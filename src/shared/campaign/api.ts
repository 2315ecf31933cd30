// What the workbench shows of campaigns (the Campaigns panel over the WorkbenchApi) and what the
// research agent's decision log holds: the schemas shared by the store, the runner, the panel and
// the report. The trial record itself is in trials.ts.
import { z } from 'zod';
import { CampaignStateSchema, TrialRowSchema } from './trials';

export const StepPointSchema = z.object({
  step: z.number().int(),
  elapsedS: z.number(),
  rewardMean: z.number(),
  successRate: z.number().nullable(),
});
export type CampaignStepPoint = z.infer<typeof StepPointSchema>;

export const AgentStatusSchema = z.enum(['off', 'active', 'paused', 'handed_back', 'limit_reached']);
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

export const AgentStateSchema = z.object({
  status: AgentStatusSchema,
  mode: z.enum(['auto', 'ask']),
  model: z.string(),
  tokensUsed: z.number().int().min(0),
  trialsProposed: z.number().int().min(0),
  /** Why it stopped, when it did. */
  note: z.string().nullable(),
});
export type AgentState = z.infer<typeof AgentStateSchema>;

export const DecisionKindSchema = z.enum(['propose', 'stop_trial', 'analysis', 'note', 'limit', 'control', 'error']);
export const DecisionStatusSchema = z.enum(['pending', 'approved', 'rejected', 'enqueued', 'done', 'refused']);
export type DecisionStatus = z.infer<typeof DecisionStatusSchema>;

export const DecisionSchema = z.object({
  id: z.number().int(),
  t: z.number(),
  kind: DecisionKindSchema,
  status: DecisionStatusSchema,
  rationale: z.string(),
  /** The proposal's parameters, the trial stopped, the analysis text … */
  payload: z.record(z.string(), z.unknown()),
  trial: z.number().int().nullable(),
});
export type Decision = z.infer<typeof DecisionSchema>;

export const CampaignSummarySchema = z.object({
  campaignId: z.string(),
  name: z.string(),
  question: z.string(),
  state: CampaignStateSchema,
  dir: z.string(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  /** A runner process holds the campaign now (heartbeat within the last 30 s). */
  live: z.boolean(),
  trials: z.number().int(),
  budgetTrials: z.number().int(),
  running: z.number().int(),
  completed: z.number().int(),
  pruned: z.number().int(),
  failed: z.number().int(),
  bestValue: z.number().nullable(),
  wallS: z.number(),
  note: z.string().nullable(),
});
export type CampaignSummary = z.infer<typeof CampaignSummarySchema>;

export const CampaignDetailSchema = z.object({
  summary: CampaignSummarySchema,
  /** The campaign file as parsed (tokens and keys removed). */
  spec: z.record(z.string(), z.unknown()),
  trials: z.array(TrialRowSchema),
  /** Train-step curves of the trials (every step), by trial number. */
  curves: z.record(z.string(), z.array(StepPointSchema)),
  importance: z.record(z.string(), z.number()).nullable(),
  analysis: z.string().nullable(),
  agent: AgentStateSchema.nullable(),
  decisions: z.array(DecisionSchema),
  computeS: z.number(),
  reports: z.object({ html: z.string().nullable(), markdown: z.string().nullable() }),
});
export type CampaignDetail = z.infer<typeof CampaignDetailSchema>;

/** What the workbench asks a campaign's runner to do (through the store: the runner may be another process). */
export const CampaignCommandSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('stop') }),
  z.object({ kind: z.literal('stop_trial'), trial: z.number().int(), reason: z.string().max(2000) }),
  z.object({ kind: z.literal('agent'), action: z.enum(['pause', 'resume', 'hand_back', 'ask', 'auto']) }),
]);
export type CampaignCommand = z.infer<typeof CampaignCommandSchema>;
