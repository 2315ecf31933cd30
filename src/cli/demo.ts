// `agentjet demo`: the engine's own end-to-end run — load the built-in model, play one example
// episode, measure held-out success, run a few GRPO steps on the task, and measure again.
import { z } from 'zod';
import { EngineProcess } from '../../gpu-worker/src/engine/engine-process';
import { BUILTIN_MODEL_DIR } from '../../gpu-worker/src/resources';
import { playEpisodes, summarize, type PlayedEpisode } from '../../gpu-worker/src/rollout/evaluate';
import { buildTrainSamples } from '../../gpu-worker/src/trainer/train-samples';
import { calculatorExample, guessNumberExample, loadExampleTasks, type Example } from '../../resources/examples/index';
import type { ChatMessage } from '../shared/chat';
import { createPrng } from '../shared/prng';

export const DemoOptionsSchema = z.object({
  task: z.enum(['calculator-agent', 'guess-number']).default('calculator-agent'),
  steps: z.coerce.number().int().min(0).default(30),
  tasksPerStep: z.coerce.number().int().positive().default(8),
  groupSize: z.coerce.number().int().min(2).default(8),
  lr: z.coerce.number().positive().default(1e-4),
  evalN: z.coerce.number().int().positive().default(100),
  temperature: z.coerce.number().min(0).default(1),
  maxTokens: z.coerce.number().int().positive().default(96),
  seed: z.coerce.number().int().default(0),
  threads: z.coerce.number().int().positive().default(2),
  model: z.string().default(BUILTIN_MODEL_DIR),
});
export type DemoOptions = z.infer<typeof DemoOptionsSchema>;

export const demoHelp = `agentjet demo [options]   load the built-in model and train it on an example task with GRPO
  --task calculator-agent|guess-number   example task (default calculator-agent)
  --steps K            policy updates (default 30)
  --tasks-per-step N   distinct tasks per update (default 8)
  --group-size G       rollouts per task, the GRPO group (default 8)
  --lr LR              learning rate (default 1e-4)
  --eval-n N           held-out episodes before and after (default 100)
  --temperature T      sampling temperature (default 1)
  --max-tokens N       tokens per model call (default 96)
  --seed S             seed for task order and sampling (default 0)
  --threads T          torch CPU threads (default 2)
  --model DIR          a Hugging Face model folder (default the built-in model)`;

function show(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => {
      const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${c.function.arguments})`).join(' ');
      return `  ${m.role.padEnd(9)} ${[m.content ?? '', calls].filter((s) => s !== '').join(' ').replaceAll('\n', ' ⏎ ')}`;
    })
    .join('\n');
}

export async function runDemo(o: DemoOptions): Promise<void> {
  const example: Example<{ id: string }> = o.task === 'calculator-agent' ? calculatorExample : guessNumberExample;
  const engine = await EngineProcess.start({ onLog: (l) => process.stderr.write(`  engine: ${l}\n`) });
  try {
    const t0 = performance.now();
    const info = await engine.call('load', { path: o.model, threads: o.threads, seed: o.seed });
    console.log(`AgentJet demo · ${info.model} · ${(info.params / 1e6).toFixed(2)}M params · ${info.device}/${info.dtype} · torch ${info.torch} · ${info.threads} threads · loaded in ${((performance.now() - t0) / 1000).toFixed(1)}s`);
    const sampling = { maxTokens: o.maxTokens, temperature: o.temperature };
    const evalTasks = loadExampleTasks(example, 'eval').slice(0, o.evalN);
    const evaluate = async (label: string): Promise<PlayedEpisode<{ id: string }>[]> => {
      const t = performance.now();
      const played = await playEpisodes(engine, example.env, evalTasks, { sampling, seed: o.seed + 99 });
      const s = summarize(played);
      console.log(`${label}: held-out success ${(s.success * 100).toFixed(1)}% · reward ${s.rewardMean.toFixed(3)} · n=${s.episodes} · ${((performance.now() - t) / 1000).toFixed(1)}s`);
      return played;
    };
    const before = await evaluate('eval before training');
    const first = before[0];
    if (first) console.log(`one ${example.name} episode (${first.task.id}, reward ${first.result.reward}):\n${show(first.result.messages)}`);

    const train = loadExampleTasks(example, 'train');
    const prng = createPrng(o.seed);
    for (let step = 1; step <= o.steps; step++) {
      const t = performance.now();
      const tasks = Array.from({ length: o.tasksPerStep }, () => prng.pick(train));
      const group = tasks.flatMap((task) => Array.from({ length: o.groupSize }, () => task));
      const played = await playEpisodes(engine, example.env, group, { sampling, seed: prng.int(0, 2 ** 31 - 1), episodePrefix: `s${step}-` });
      const rollout = (performance.now() - t) / 1000;
      const s = summarize(played);
      const { samples, droppedEpisodes, merge } = buildTrainSamples(
        played.map((p) => ({ episodeId: p.episodeId, groupKey: p.task.id, reward: p.result.reward, timelines: p.calls })),
        { estimator: 'grpo', merge: 'linear', dropZeroAdvantage: true },
      );
      let update = 'no signal (every group had equal rewards)';
      if (samples.length > 0) {
        const st = await engine.call('train_step', { samples, hyper: { lr: o.lr, clipLow: 0.2, clipHigh: 0.28, maxGradNorm: 1, microBatchTokens: 4096 } });
        update = `loss ${st.loss.toFixed(4)} · kl ${st.approxKl.toFixed(4)} · clip ${st.clipFraction.toFixed(3)} · ${st.trainedTokens} tokens trained · v${st.weightVersion}`;
      }
      console.log(
        `step ${String(step).padStart(2)}/${o.steps} · reward ${s.rewardMean.toFixed(3)} · success ${(s.success * 100).toFixed(0)}% · ` +
          `${played.length} episodes (${droppedEpisodes} zero-advantage) · ${merge.callsIn} calls → ${samples.length} samples ` +
          `(${merge.compressionRatio.toFixed(2)}× fewer tokens) · ${update} · ` +
          `rollout ${rollout.toFixed(1)}s · total ${((performance.now() - t) / 1000).toFixed(1)}s`,
      );
    }
    if (o.steps > 0) await evaluate('eval after training');
  } finally {
    await engine.dispose();
  }
}
