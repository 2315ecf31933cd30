// AgentJet's `CurrentBatchRolloutPoolInformation` (what its client's get_rollout_stat and throttle
// policy read) built from our pool of finished, untrained episodes, the open episodes and the batch
// strategy: completed episodes / tasks / non-dummy tasks against their targets, which episodes and
// clients completed each task, and the running episodes with their idle time. Pure: time comes in.
import type { TrainingConfig } from '../swarm-protocol';
import { COLLECTION_METHODS, type EngineStatus } from './protocol';

export interface PooledEpisode {
  episodeId: string;
  taskId: string;
  clientId: string;
  reward: number;
}

export interface RunningEpisode {
  episodeId: string;
  clientId: string;
  taskId?: string;
  lastActivityAt: number;
  timeoutMs: number;
}

export function poolInformation(
  cfg: Pick<TrainingConfig, 'strategy' | 'batch' | 'groupSize'>,
  pool: readonly PooledEpisode[],
  running: readonly RunningEpisode[],
  o: { now: number; engineStatus: EngineStatus; globalStep: number },
): Record<string, unknown> {
  const byTask = new Map<string, PooledEpisode[]>();
  for (const e of pool) byTask.set(e.taskId, [...(byTask.get(e.taskId) ?? []), e]);
  const finished = [...byTask.values()].filter((eps) => eps.length >= cfg.groupSize);
  const nonDummy = finished.filter((eps) => new Set(eps.map((e) => e.reward)).size > 1);
  const byTasks = cfg.strategy === 'C2' || cfg.strategy === 'C3';
  const taskTarget = byTasks ? cfg.batch : 0;
  const details = Object.fromEntries(
    running.map((e) => [
      e.episodeId,
      {
        episode_status: 'claimed',
        time_since_last_activity: `${((o.now - e.lastActivityAt) / 1000).toFixed(1)}s`,
        discard_episode_timeout: `${(e.timeoutMs / 1000).toFixed(1)}s`,
        client_uuid: e.clientId,
        optional_task_id: e.taskId ?? '',
      },
    ]),
  );
  return {
    sample_collection_method: COLLECTION_METHODS[cfg.strategy],
    completed_episodes: pool.length,
    completed_episode_target: cfg.strategy === 'C1' ? cfg.batch : byTasks ? cfg.batch * cfg.groupSize : 0,
    completed_tasks: finished.length,
    completed_task_target: taskTarget,
    completed_non_dummy_tasks: nonDummy.length,
    completed_non_dummy_task_target: taskTarget,
    task_expected_num_repeat: cfg.groupSize,
    completed_tasks_details: Object.fromEntries([...byTask].map(([task, eps]) => [task, eps.map((e) => e.episodeId)])),
    completed_tasks_client_uuids: Object.fromEntries(
      [...byTask].map(([task, eps]) => [task, eps.map((e) => e.clientId)]),
    ),
    running_episode_details: running.length > 0 ? details : null,
    engine_status: o.engineStatus,
    global_step: o.globalStep,
    booting_start_time: null,
  };
}
