// The example clients' main loop: forever pick a random task (seeded by AGENTJET_CLIENT_ID; in paired
// order with AGENTJET_PAIRED_TASKS=1, in lock-step with the other frameworks' clients when
// AGENTJET_PAIRED_SYNC is set too: paired-sync.ts), play it
// as a group of AGENTJET_GROUP_SIZE concurrent swarm episodes (the advantage group) with the given
// policy, and end each with the env's score. Stops on SIGTERM. A client may instead choose its own
// task (`pickTask`) and play it itself (`play`), e.g. a mix of envs.
import { SwarmClient, installSignalHandlers, type EpisodeContext } from '../../src/sdk/index';
import type { EpisodeResult, Policy } from '../../src/shared/episode';
import { runEpisode } from '../../src/shared/episode';
import { createPrng, fnv1a, type Prng } from '../../src/shared/prng';
import type { TaskEnv } from '../../src/shared/task';
import { awaitPeers, clientIndex, markGroupDone, pairedSyncFromEnv } from './paired-sync';

interface LoopCommon<T extends { id: string }> {
  tasks: readonly T[];
  /** Chooses the next task (default: a uniform pick from `tasks`). */
  pickTask?: (rng: Prng) => T;
  /** Stop after this many episodes (default: AGENTJET_MAX_EPISODES, else forever). */
  maxEpisodes?: number;
  /** Episodes per task, played at once (default: AGENTJET_GROUP_SIZE, else 1). */
  groupSize?: number;
  log?: (line: string) => void;
}

/** The episode's policy, built from its OpenAI credentials. */
type WithPolicy = { policy: (ctx: EpisodeContext) => Policy };

/**
 * One env for all tasks, or a `play` function that runs a task with a policy, or (for frameworks
 * that run the agent loop themselves) `playEpisode`, given the episode's credentials.
 */
export type LoopOptions<T extends { id: string }> = LoopCommon<T> &
  (
    | ({ env: TaskEnv<T> } & WithPolicy)
    | ({ play: (task: T, policy: Policy) => Promise<EpisodeResult> } & WithPolicy)
    | { playEpisode: (task: T, ctx: EpisodeContext) => Promise<EpisodeResult> }
  );

/**
 * The n-th task index of a client in paired order (AGENTJET_PAIRED_TASKS=1): a fixed stride through the
 * tasks from an offset set by the client's index (the number its id ends with), so the clients of the same
 * index play the same tasks in the same order whatever their framework — the train bench compares
 * frameworks task by task this way (bench/framework-noise.ts). client.py mirrors it.
 */
export function pairedTaskIndex(clientId: string, n: number, count: number): number {
  const index = clientIndex(clientId);
  const stride = count % 1009 === 0 ? 1013 : 1009;
  return (((index * 7919 + n * stride) % count) + count) % count;
}

export async function runSwarmLoop<T extends { id: string }>(o: LoopOptions<T>): Promise<void> {
  const client = SwarmClient.fromEnv();
  installSignalHandlers();
  const log = o.log ?? ((line: string) => console.log(line));
  const rng = createPrng(fnv1a(client.clientId));
  const limit = o.maxEpisodes ?? (Number(process.env['AGENTJET_MAX_EPISODES']) || Infinity);
  const group = Math.max(1, Math.floor(o.groupSize ?? (Number(process.env['AGENTJET_GROUP_SIZE'] ?? 1) || 1)));
  const paired = process.env['AGENTJET_PAIRED_TASKS'] === '1';
  const lockstep = paired ? pairedSyncFromEnv() : null;
  for (let n = 0; n < limit; n += group) {
    if (lockstep && n > 0 && !(await awaitPeers(lockstep, client.clientId, n / group - 1)))
      log(`paired lock-step: peers did not finish group ${n / group - 1} in ${lockstep.timeoutMs / 1000} s; going on`);
    const task = o.pickTask
      ? o.pickTask(rng)
      : paired
        ? o.tasks[pairedTaskIndex(client.clientId, n / group, o.tasks.length)]!
        : rng.pick(o.tasks);
    await Promise.all(Array.from({ length: Math.min(group, limit - n) }, () => playOne(client, o, task, log)));
    if (lockstep) markGroupDone(lockstep, client.clientId, n / group);
  }
}

async function playOne<T extends { id: string }>(
  client: SwarmClient,
  o: LoopOptions<T>,
  task: T,
  log: (line: string) => void,
): Promise<void> {
  try {
    const out = await client.episode(task, async (ctx) => {
      const r =
        'playEpisode' in o
          ? await o.playEpisode(task, ctx)
          : 'play' in o
            ? await o.play(task, o.policy(ctx))
            : await runEpisode(o.env, task, o.policy(ctx));
      return { reward: r.reward, success: r.success, metrics: { ...r.metrics, turns: r.turns } };
    });
    log(`${task.id}: reward ${out.result.reward} success ${String(out.result.success)}`);
  } catch (err) {
    log(`${task.id}: episode failed: ${err instanceof Error ? err.message : String(err)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
