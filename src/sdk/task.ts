// A task folder's client loop (what `agentjet task new` writes clients against, docs/campaigns.md, "Tasks"):
// a dataset with train and eval splits and a `play(task, ctx)` that runs one episode with the
// OpenAI credentials it is given and returns the reward. The environment chooses the mode:
// training (the default) plays random train tasks forever, each as a group of
// AGENTJET_GROUP_SIZE concurrent episodes; AGENTJET_SPLIT=eval plays the first
// AGENTJET_MAX_EPISODES eval tasks once each as `eval` episodes (never trained on) and exits —
// how campaigns evaluate a task folder and how `agentjet task check` plays its smoke episodes.
import { readFileSync } from 'node:fs';
import { createPrng, fnv1a } from '../shared/prng';
import { SwarmClient } from './client';
import type { EpisodeContext, EpisodeResult } from './episode';
import { installSignalHandlers } from './inflight';

export interface TaskClientOptions<T extends { id: string }> {
  train: readonly T[];
  eval: readonly T[];
  /** Plays one episode of `task` (pass `ctx.signal` to the LLM calls) and scores it. */
  play: (task: T, ctx: EpisodeContext) => Promise<EpisodeResult>;
  /** Wall-clock limit of one episode (default 120 s). */
  deadlineMs?: number;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface TaskClientMode {
  split: 'train' | 'eval';
  maxEpisodes: number;
  groupSize: number;
  concurrency: number;
}

const positive = (v: string | undefined, fallback: number): number => {
  const n = Number(v);
  return Number.isFinite(n) && n >= 1 ? Math.floor(n) : fallback;
};

/**
 * The mode the environment asks for (AGENTJET_SPLIT, AGENTJET_MAX_EPISODES, AGENTJET_GROUP_SIZE, AGENTJET_CONCURRENCY).
 */
export function taskClientMode(env: NodeJS.ProcessEnv = process.env): TaskClientMode {
  const split = env['AGENTJET_SPLIT'] === 'eval' ? 'eval' : 'train';
  return {
    split,
    maxEpisodes: positive(env['AGENTJET_MAX_EPISODES'], Number.POSITIVE_INFINITY),
    groupSize: split === 'eval' ? 1 : positive(env['AGENTJET_GROUP_SIZE'], 1),
    concurrency: positive(env['AGENTJET_CONCURRENCY'], 2),
  };
}

/** One JSON object per line (blank lines skipped), each checked by `parse`; errors name file:line. */
export function loadJsonl<T>(path: string, parse: (raw: unknown) => T): T[] {
  const out: T[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        out.push(parse(JSON.parse(line)));
      } catch (err) {
        throw new Error(`${path}:${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  return out;
}

export async function runTaskClient<T extends { id: string }>(o: TaskClientOptions<T>): Promise<void> {
  const env = o.env ?? process.env;
  const mode = taskClientMode(env);
  const client = SwarmClient.fromEnv(env);
  installSignalHandlers();
  const log = o.log ?? ((line: string) => console.log(line));
  const one = async (task: T, kind: 'train' | 'eval'): Promise<void> => {
    try {
      const out = await client.episode(task, (ctx) => o.play(task, ctx), { kind, deadlineMs: o.deadlineMs ?? 120_000 });
      log(`${task.id}: reward ${out.result.reward} success ${String(out.result.success)}`);
    } catch (err) {
      // The episode was aborted on the server with this reason; the loop goes on.
      log(`${task.id}: episode failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (kind === 'train') await new Promise((r) => setTimeout(r, 500));
    }
  };
  if (mode.split === 'eval') {
    const tasks = o.eval.slice(0, Math.min(o.eval.length, mode.maxEpisodes));
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < tasks.length) await one(tasks[next++]!, 'eval');
    };
    await Promise.all(Array.from({ length: Math.min(mode.concurrency, tasks.length) }, lane));
    return;
  }
  if (o.train.length === 0) throw new Error('the train split is empty');
  const rng = createPrng(fnv1a(client.clientId));
  for (let n = 0; n < mode.maxEpisodes; n += mode.groupSize) {
    const task = rng.pick(o.train);
    await Promise.all(Array.from({ length: Math.min(mode.groupSize, mode.maxEpisodes - n) }, () => one(task, 'train')));
  }
}
