// Eval for `agentjet train`: plays a fixed set of held-out tasks as `eval` episodes (never trained
// on) through the openai package, a few at a time, and reports the success rate.
import OpenAI from 'openai';
import { loadTasks, calculatorEnv } from '../../resources/examples/index';
import { openaiPolicy } from '../../resources/examples/openai-policy';
import { SwarmClient } from '../sdk/index';
import { runEpisode } from '../shared/episode';

export interface EvalSummary {
  episodes: number;
  successRate: number;
  rewardMean: number;
  /** Episodes that failed (aborted); they count as unsuccessful. */
  failed: number;
  /** Weight versions the eval episodes were sampled with. */
  versions: number[];
  seconds: number;
}

export async function runEval(url: string, joinToken: string, episodes: number, concurrency = 4): Promise<EvalSummary> {
  const t0 = performance.now();
  const tasks = loadTasks('calculator-agent', 'eval').slice(0, episodes);
  const client = new SwarmClient({ url, joinToken, clientId: 'train-eval' });
  const results: { reward: number; success: boolean; version: number }[] = [];
  let failed = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      let version = -1;
      const out = await client.episode(task, async ({ baseUrl, apiKey, model, signal, weightVersion }) => {
        version = weightVersion;
        const r = await runEpisode(calculatorEnv, task, openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal }));
        return { reward: r.reward, success: r.success, metrics: r.metrics };
      }, { kind: 'eval' }).catch(() => null);
      if (out) results.push({ reward: out.result.reward, success: out.result.success ?? false, version });
      else failed++;
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
    seconds: (performance.now() - t0) / 1000,
  };
}
