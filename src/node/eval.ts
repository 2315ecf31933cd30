// Eval for `agentjet train`: plays a fixed set of held-out tasks as `eval` episodes (never trained
// on) through the openai package, a few at a time, and reports the success rate; one task per call.
import OpenAI from 'openai';
import { calculatorEnv, guessNumberEnv, loadTasks } from '../../resources/examples/index';
import { openaiPolicy } from '../../resources/examples/openai-policy';
import { SwarmClient } from '../sdk/index';
import { runEpisode, type EpisodeResult, type Policy } from '../shared/episode';
import type { TaskKey } from './tasks';

interface EvalPlay {
  task: { id: string };
  play: (policy: Policy) => Promise<EpisodeResult>;
}

/** The first `n` held-out tasks of a task, each with how to play it. */
function evalPlays(key: TaskKey, n: number): EvalPlay[] {
  if (key === 'calc')
    return loadTasks('calculator-agent', 'eval')
      .slice(0, n)
      .map((task) => ({ task, play: (p) => runEpisode(calculatorEnv, task, p) }));
  return loadTasks('guess-number', 'eval')
    .slice(0, n)
    .map((task) => ({ task, play: (p) => runEpisode(guessNumberEnv, task, p) }));
}

export interface EvalSummary {
  episodes: number;
  successRate: number;
  rewardMean: number;
  /** Episodes that failed (aborted); they count as unsuccessful. */
  failed: number;
  /** Weight versions the eval episodes were sampled with. */
  versions: number[];
  /** Each task's outcome, in task order (a failed episode is unsuccessful): paired comparisons on one task set. */
  outcomes: { taskId: string; success: boolean }[];
  seconds: number;
}

export async function runEval(
  url: string,
  joinToken: string,
  episodes: number,
  key: TaskKey = 'calc',
  concurrency = 4,
): Promise<EvalSummary> {
  const t0 = performance.now();
  const tasks = evalPlays(key, episodes);
  const client = new SwarmClient({ url, joinToken, clientId: 'train-eval' });
  const results: { reward: number; success: boolean; version: number }[] = [];
  const outcomes = tasks.map(({ task }) => ({ taskId: task.id, success: false }));
  let failed = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      const { task, play } = tasks[i]!;
      let version = -1;
      const out = await client
        .episode(
          task,
          async ({ baseUrl, apiKey, model, signal, weightVersion }) => {
            version = weightVersion;
            const r = await play(
              openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal }),
            );
            return { reward: r.reward, success: r.success, metrics: r.metrics };
          },
          { kind: 'eval' },
        )
        .catch(() => null);
      if (out) {
        results.push({ reward: out.result.reward, success: out.result.success ?? false, version });
        outcomes[i]!.success = out.result.success ?? false;
      } else failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  const n = Math.max(1, results.length + failed);
  return {
    episodes: results.length + failed,
    failed,
    successRate: results.filter((r) => r.success).length / n,
    rewardMean: results.reduce((s, r) => s + r.reward, 0) / n,
    versions: [...new Set(results.map((r) => r.version))].sort((a, b) => a - b),
    outcomes,
    seconds: (performance.now() - t0) / 1000,
  };
}
