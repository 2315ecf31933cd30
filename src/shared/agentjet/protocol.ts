// AgentJet's swarm-client contract (the public AgentJet repository's `SwarmClient`,
// ajet/tuner_lib/experimental/swarm_client.py and interchange_utils.py), re-declared from its field
// names: the request bodies its routes take, its engine status strings, and the engine status our
// worker's state maps to. Unknown fields are accepted (the client's models have grown over time:
// throttle_policy / partition_limit, declare_client_active). Pure.
import { z } from 'zod';
import { FiniteSchema, IdSchema, TextSchema, type WorkerState } from '../swarm-protocol';

export const ENGINE_STATUSES = [
  'ENGINE.OFFLINE',
  'ENGINE.BOOTING',
  'ENGINE.ROLLING',
  'ENGINE.ROLLING_POST',
  'ENGINE.WEIGHT_SYNCING',
  'ENGINE.WEIGHT_EXPORTING',
] as const;
export type EngineStatus = (typeof ENGINE_STATUSES)[number];

const TaskPolicy = z.object({ current_task_id: z.string().max(200).nullable().optional() }).loose();

export const ClaimEpisodeRequestSchema = z
  .object({
    client_uuid: IdSchema,
    episode_type: z.string().max(40),
    discard_episode_timeout: z.number().finite(),
    throttle_policy: TaskPolicy.nullable().optional(),
    partition_limit: TaskPolicy.nullable().optional(),
  })
  .loose();

export const WorkflowOutputSchema = z
  .object({
    reward: z.union([FiniteSchema, z.array(FiniteSchema), z.null()]).optional(),
    is_success: z.boolean().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    log_metrics: z.record(z.string(), z.union([FiniteSchema, z.array(FiniteSchema)])).optional(),
  })
  .loose();

export const EndEpisodeRequestSchema = z
  .object({
    client_uuid: IdSchema,
    episode_uuid: z.string().max(300),
    workflow_output: WorkflowOutputSchema,
    task_id: z.string().max(200),
    declare_client_active: z.boolean().optional(),
  })
  .loose();

export const CanContinueEpisodeRequestSchema = z
  .object({ client_uuid: IdSchema, episode_uuid: z.string().max(300) })
  .loose();
export const AgreeSyncWeightRequestSchema = z.object({ client_uuid: IdSchema }).loose();
export const SyncTrainConfigRequestSchema = z.object({ yaml_as_string: TextSchema.max(4 * 1024 * 1024) }).loose();

/**
 * The AgentJet engine status of our worker. `holdSync` keeps WEIGHT_SYNCING visible for a while
 * after an update began (AgentJet's client checks every 5 s while it waits for it after
 * agree_sync_weight, and a small model's update is over sooner); `thresholdReached` is the batch
 * strategy's "ready" (enough collected, the update about to start).
 */
export function engineStatusOf(state: WorkerState, o: { holdSync: boolean; thresholdReached: boolean }): EngineStatus {
  switch (state) {
    case 'paused':
    case 'stopping':
    case 'failed':
      return 'ENGINE.OFFLINE';
    case 'starting':
    case 'recovering':
      return 'ENGINE.BOOTING';
    case 'updating':
      return 'ENGINE.WEIGHT_SYNCING';
    case 'checkpointing':
      return 'ENGINE.WEIGHT_EXPORTING';
    case 'running':
      return o.holdSync ? 'ENGINE.WEIGHT_SYNCING' : o.thresholdReached ? 'ENGINE.ROLLING_POST' : 'ENGINE.ROLLING';
  }
}

/**
 * Why a claim is refused in a given status, worded so AgentJet's client reacts as to its own server
 * (it matches "Engine is syncing weights", "Engine is in post-rolling phase" and "No available
 * episodes to claim." to decide how long to wait).
 */
export function claimFailCause(status: EngineStatus): string {
  const advice: Record<EngineStatus, string> = {
    'ENGINE.OFFLINE':
      'The engine is not started: run `sync_train_config()` and `start_engine()` from one client (or start the worker from the workbench).',
    'ENGINE.BOOTING': 'The engine is loading the model. Try again shortly.',
    'ENGINE.ROLLING': 'No available episodes to claim. Try again shortly.',
    'ENGINE.ROLLING_POST': 'Engine is in post-rolling phase. Try again after the update.',
    'ENGINE.WEIGHT_SYNCING': 'Engine is syncing weights. Try again after the update.',
    'ENGINE.WEIGHT_EXPORTING': 'The engine is writing a checkpoint. Try again shortly.',
  };
  return `Engine not ready. Current status: [${status}]. ${advice[status]}`;
}

/** AgentJet's `sample_collection_method` for each of our strategies. */
export const COLLECTION_METHODS = {
  C1: 'rollout_until_finish_enough_episodes',
  C2: 'rollout_until_finish_enough_tasks',
  C3: 'rollout_until_finish_enough_non_dummy_tasks',
  C4: 'rollout_until_any_client_agree_sync_weight',
  C5: 'rollout_until_all_clients_agree_sync_weight',
} as const;
