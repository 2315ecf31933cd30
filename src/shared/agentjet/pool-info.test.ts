import { describe, expect, it } from 'vitest';
import { poolInformation } from './pool-info';

describe('poolInformation', () => {
  it('counts finished and non-dummy tasks against the strategy targets and lists running episodes', () => {
    const pool = [
      { episodeId: 'e1', taskId: 'a', clientId: 'u1', reward: 1 },
      { episodeId: 'e2', taskId: 'a', clientId: 'u2', reward: 0 },
      { episodeId: 'e3', taskId: 'b', clientId: 'u1', reward: 1 },
      { episodeId: 'e4', taskId: 'b', clientId: 'u1', reward: 1 },
      { episodeId: 'e5', taskId: 'c', clientId: 'u1', reward: 1 },
    ];
    const info = poolInformation(
      { strategy: 'C3', batch: 4, groupSize: 2 },
      pool,
      [{ episodeId: 'e6', clientId: 'u3', lastActivityAt: 1000, timeoutMs: 60_000 }],
      { now: 3500, engineStatus: 'ENGINE.ROLLING', globalStep: 7 },
    );
    expect(info).toMatchObject({
      sample_collection_method: 'rollout_until_finish_enough_non_dummy_tasks',
      completed_episodes: 5,
      completed_episode_target: 8,
      completed_tasks: 2,
      completed_task_target: 4,
      completed_non_dummy_tasks: 1,
      task_expected_num_repeat: 2,
      global_step: 7,
      completed_tasks_client_uuids: { a: ['u1', 'u2'], b: ['u1', 'u1'], c: ['u1'] },
      running_episode_details: {
        e6: {
          episode_status: 'claimed',
          time_since_last_activity: '2.5s',
          discard_episode_timeout: '60.0s',
          client_uuid: 'u3',
          optional_task_id: '',
        },
      },
    });
    expect(
      poolInformation({ strategy: 'C1', batch: 4, groupSize: 2 }, [], [], {
        now: 0,
        engineStatus: 'ENGINE.OFFLINE',
        globalStep: 0,
      }),
    ).toMatchObject({ completed_episode_target: 4, completed_task_target: 0, running_episode_details: null });
  });
});
