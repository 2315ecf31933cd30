// Benchmark `reward-model`, part 1: the human's part, played by the verifiable reward. The warm-started
// policy plays train-split calculator tasks (each as a group of episodes, `eval` kind so nothing trains on
// them); the workbench's own fetcher stores each episode with its timelines in a SQLite store, and each
// gets a good/bad label by its verifiable success (author "verifier") through the labels service — the
// path a person labelling in the inspector takes.
import OpenAI from 'openai';
import { loadTasks } from '../resources/examples/index';
import { calculatorEnv } from '../resources/examples/calculator-agent/env';
import { openaiPolicy } from '../resources/examples/openai-policy';
import { EpisodeFetcher, type FetchedEpisode } from '../src/node/services/episode-fetcher';
import { LabelsService } from '../src/node/services/labels-service';
import { WorkerClient } from '../src/node/worker-client';
import type { Store } from '../src/node/store/types';
import { SwarmClient } from '../src/sdk/index';
import { runEpisode } from '../src/shared/episode';

export interface Collected {
  episodes: number;
  successes: number;
  /** Tasks with both a success and a failure among their episodes (they imply preferences). */
  mixedGroups: number;
  /** Mean wall-clock seconds of one episode as its client saw it. */
  meanEpisodeS: number;
  seconds: number;
}

export interface CollectOptions {
  url: string;
  adminToken: string;
  joinToken: string;
  store: Store;
  runId: string;
  /** Further runs (already created) that get the same episodes and labels: arms that add labels of their own. */
  copies?: readonly string[];
  tasks: number;
  group: number;
  concurrency: number;
  /** Which train tasks (offset into the split), so the policy runs later see other ones too. */
  offset: number;
  log: (line: string) => void;
}

export async function collectLabels(o: CollectOptions): Promise<Collected> {
  const t0 = performance.now();
  const tasks = loadTasks('calculator-agent', 'train').slice(o.offset, o.offset + o.tasks);
  const jobs = tasks.flatMap((task) => Array.from({ length: o.group }, () => task));
  const client = new SwarmClient({ url: o.url, joinToken: o.joinToken, clientId: 'bench-labeller' });
  const played: { episodeId: string; taskId: string; success: boolean; seconds: number }[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const task = jobs[next++]!;
      const started = performance.now();
      const out = await client
        .episode(
          task,
          async ({ baseUrl, apiKey, model, signal }) => {
            const r = await runEpisode(
              calculatorEnv,
              task,
              openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal }),
            );
            return { reward: r.reward, success: r.success, metrics: r.metrics };
          },
          { kind: 'eval' },
        )
        .catch(() => null);
      if (out)
        played.push({
          episodeId: out.episodeId,
          taskId: task.id,
          success: out.result.success ?? false,
          seconds: (performance.now() - started) / 1000,
        });
      if (played.length % 50 === 0 && out) o.log(`  labelled episodes played: ${played.length}/${jobs.length}`);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));

  // Store them as the workbench does (summary + timelines from the worker), then label.
  const fetched: FetchedEpisode[] = [];
  const fetcher = new EpisodeFetcher(
    new WorkerClient(o.url, o.adminToken),
    (e) => fetched.push(e),
    () => undefined,
    (m) => o.log(`  fetch: ${m}`),
  );
  for (const p of played) fetcher.add(p.episodeId);
  await fetcher.idle();
  fetcher.close();
  const runs = [o.runId, ...(o.copies ?? [])];
  o.store.transaction(() => {
    for (const runId of runs)
      for (const e of fetched) {
        o.store.putEpisode(runId, e.row);
        if (e.timelines.length > 0) o.store.putEpisodeTimelines(runId, e.row.episodeId, e.timelines, e.merged);
      }
  });
  const stored = new Set(fetched.filter((e) => e.timelines.length > 0).map((e) => e.row.episodeId));
  const labels = new LabelsService({ store: o.store, author: 'verifier' });
  for (const runId of runs)
    for (const p of played)
      if (stored.has(p.episodeId))
        await labels.putLabel({ runId, label: { kind: p.success ? 'good' : 'bad', episodeId: p.episodeId } });
  await labels.dispose();
  const byTask = new Map<string, Set<boolean>>();
  for (const p of played) byTask.set(p.taskId, (byTask.get(p.taskId) ?? new Set()).add(p.success));
  return {
    episodes: stored.size,
    successes: played.filter((p) => p.success && stored.has(p.episodeId)).length,
    mixedGroups: [...byTask.values()].filter((s) => s.size === 2).length,
    meanEpisodeS: played.reduce((s, p) => s + p.seconds, 0) / Math.max(1, played.length),
    seconds: (performance.now() - t0) / 1000,
  };
}
