// Benchmark `eval-noise`: how noisy is one held-out evaluation of the train bench, run to run? It starts
// the built-in model (the train bench's warm start, temperature 1), plays the same held-out tasks
// (--eval-episodes of the eval split, 200 = all of it) --repeats times, and reports each repeat's success
// rate, their standard deviation (the measured noise of one evaluation on this fixed task set), the
// binomial standard error the train bench quotes (the noise if the tasks were drawn afresh each time),
// and the noise expected from the tasks that sometimes succeed and sometimes not (within-task). The train
// bench compares evaluations on the same tasks, so its gain is paired task by task (eval-noise-stats.ts).
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startWorker } from '../gpu-worker/src/worker';
import { workerConfigFromOptions, WorkerOptionsSchema } from '../src/cli/worker';
import { runEval } from '../src/node/eval';
import { argValue, round } from './engine';
import { repeatNoise } from './eval-noise-stats';

export async function benchEvalNoise(args: string[]): Promise<Record<string, unknown>> {
  const repeats = Number(argValue(args, '--repeats') ?? 4);
  const episodes = Number(argValue(args, '--eval-episodes') ?? 200);
  if (!Number.isInteger(repeats) || repeats < 2) throw new Error('--repeats: at least 2');
  if (!Number.isInteger(episodes) || episodes < 1) throw new Error('--eval-episodes: a positive whole number');
  const runDir = resolve(argValue(args, '--run-dir') ?? join('runs', `bench-eval-noise-${Date.now()}`));
  mkdirSync(runDir, { recursive: true });
  const wo = WorkerOptionsSchema.parse({
    runDir: join(runDir, 'worker'),
    port: '0',
    model: 'builtin',
    threads: argValue(args, '--threads') ?? '1',
    seed: argValue(args, '--seed') ?? '1',
  });
  const tokens = { admin: randomBytes(16).toString('hex'), join: randomBytes(16).toString('hex') };
  const worker = await startWorker(workerConfigFromOptions(wo).config, {
    tokens,
    log: (l) => appendFileSync(join(runDir, 'worker.log'), `${l}\n`),
  });
  const t0 = performance.now();
  const outcomes: boolean[][] = [];
  try {
    for (let k = 0; k < repeats; k++) {
      const e = await runEval(worker.url, tokens.join, episodes, 'calc');
      outcomes.push(e.outcomes.map((o) => o.success));
      console.log(
        `repeat ${k + 1}/${repeats}: ${(100 * e.successRate).toFixed(1)}% of ${e.episodes} (${e.failed} failed) · ` +
          `${e.seconds.toFixed(0)} s`,
      );
    }
  } finally {
    await worker.dispose();
  }
  const r = repeatNoise(outcomes);
  const pp = (x: number | null): number | null => (x === null ? null : round(100 * x, 2));
  return {
    bench: 'eval-noise',
    repeats,
    eval_episodes: episodes,
    rates_pp: r.rates.map((x) => round(100 * x, 1)),
    mean_pp: pp(r.mean),
    sd_across_repeats_pp: pp(r.sdAcross),
    binomial_se_pp: pp(r.binomialSe),
    within_task_se_pp: pp(r.withinTaskSe),
    tasks_always: r.always,
    tasks_never: r.never,
    tasks_mixed: r.mixed,
    minutes: round((performance.now() - t0) / 60_000, 1),
  };
}
