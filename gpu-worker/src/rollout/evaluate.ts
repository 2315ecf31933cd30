// Plays many episodes of an example task against the engine at once (their calls batched
// together) and reports reward, success and per-call records.
import { runEpisode, type EpisodeResult } from '../../../src/shared/episode';
import { createPrng, deriveSeed } from '../../../src/shared/prng';
import type { TaskEnv } from '../../../src/shared/task';
import { Admission } from '../engine/admission';
import { gateGenerator } from '../engine/generator';
import { enginePolicy, type CallRecord, type EngineCaller, type Sampling } from './engine-policy';

export interface PlayedEpisode<T> {
  task: T;
  index: number;
  episodeId: string;
  result: EpisodeResult;
  calls: CallRecord[];
}

export interface PlayOptions {
  sampling: Sampling;
  seed: number;
  /** Episode ids are `<episodePrefix><index>` (default `ep`). */
  episodePrefix?: string;
  /** Largest generate batch. */
  maxBatch?: number;
  /** The model's context length (prompt + output); default: unbounded. */
  contextLength?: number;
}

/** Runs one episode per task, all concurrently; results come back in task order. */
export async function playEpisodes<T>(
  engine: EngineCaller,
  env: TaskEnv<T>,
  tasks: readonly T[],
  opts: PlayOptions,
): Promise<PlayedEpisode<T>[]> {
  const gate = new Admission(engine, { maxInFlight: 2 * (opts.maxBatch ?? 64) });
  const deps = {
    engine,
    generator: gateGenerator(gate),
    contextLength: () => opts.contextLength ?? Number.MAX_SAFE_INTEGER,
  };
  return Promise.all(
    tasks.map(async (task, index) => {
      const calls: CallRecord[] = [];
      const episodeId = `${opts.episodePrefix ?? 'ep'}${index}`;
      // one PRNG per episode: its seeds do not depend on the order in which concurrent calls finish
      const prng = createPrng(deriveSeed(opts.seed, episodeId));
      const policy = enginePolicy(deps, {
        sampling: opts.sampling,
        nextSeed: () => prng.int(0, 2 ** 31 - 1),
        episodeId,
        onCall: (c) => calls.push(c),
      });
      const result = await runEpisode(env, task, policy);
      return { task, index, episodeId, result, calls };
    }),
  );
}

export interface EvalSummary {
  episodes: number;
  success: number;
  rewardMean: number;
  callsPerEpisode: number;
}

export function summarize(played: readonly PlayedEpisode<unknown>[]): EvalSummary {
  const n = Math.max(1, played.length);
  return {
    episodes: played.length,
    success: played.filter((p) => p.result.success).length / n,
    rewardMean: played.reduce((s, p) => s + p.result.reward, 0) / n,
    callsPerEpisode: played.reduce((s, p) => s + p.calls.length, 0) / n,
  };
}
