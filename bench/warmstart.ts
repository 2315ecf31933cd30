// Benchmark `warmstart`: held-out success of the warm-started built-in model on both example
// tasks (the eval splits, never trained on), sampled at temperature 1 as RL samples it, and
// greedy for context. The gap to 100% is what RL has to close.
import { EngineProcess } from '../gpu-worker/src/engine/engine-process';
import { BUILTIN_MODEL_DIR } from '../gpu-worker/src/resources';
import { playEpisodes, summarize, type EvalSummary } from '../gpu-worker/src/rollout/evaluate';
import type { TaskEnv } from '../src/shared/task';
import { calculatorExample, guessNumberExample, loadExampleTasks, type Example } from '../resources/examples/index';
import { argValue, round } from './engine';

export async function benchWarmstart(args: string[]): Promise<Record<string, unknown>> {
  const limit = Number(argValue(args, '--n') ?? 200);
  const modelDir = argValue(args, '--model') ?? BUILTIN_MODEL_DIR;
  const maxTokens = Number(argValue(args, '--max-tokens') ?? 96);
  const engine = await EngineProcess.start({ onLog: (l) => process.stderr.write(`  engine: ${l}\n`) });
  try {
    const info = await engine.call('load', {
      path: modelDir,
      threads: Number(argValue(args, '--threads') ?? 2),
      seed: 0,
    });
    console.log(`model ${info.model} · ${(info.params / 1e6).toFixed(2)}M params · ${info.device}/${info.dtype}`);
    const run = async <T>(example: Example<T>, temperature: number): Promise<EvalSummary> => {
      const tasks = loadExampleTasks(example, 'eval').slice(0, limit);
      const t0 = performance.now();
      const env: TaskEnv<T> = example.env;
      const played = await playEpisodes(engine, env, tasks, { sampling: { maxTokens, temperature }, seed: 1234 });
      const s = summarize(played);
      console.log(
        `${example.name.padEnd(16)} T=${temperature.toFixed(1)}  success ${(s.success * 100).toFixed(1)}%  reward ${s.rewardMean.toFixed(3)}  ` +
          `${s.callsPerEpisode.toFixed(2)} calls/episode  n=${s.episodes}  ${((performance.now() - t0) / 1000).toFixed(1)}s`,
      );
      return s;
    };
    const calc = await run(calculatorExample, 1);
    const guess = await run(guessNumberExample, 1);
    const calcGreedy = await run(calculatorExample, 0);
    const guessGreedy = await run(guessNumberExample, 0);
    return {
      bench: 'warmstart',
      calculator_success: round(calc.success, 3),
      guess_success: round(guess.success, 3),
      calculator_success_greedy: round(calcGreedy.success, 3),
      guess_success_greedy: round(guessGreedy.success, 3),
      n_calculator: calc.episodes,
      n_guess: guess.episodes,
    };
  } finally {
    await engine.dispose();
  }
}
