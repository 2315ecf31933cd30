// `agentjet demo`: the engine's own end-to-end run — load the built-in model, play one example
// episode, measure held-out success, run a few GRPO steps on the task, and measure again.
import { z } from 'zod';
import { EngineProcess } from '../../gpu-worker/src/engine/engine-process';
import { BUILTIN_MODEL_DIR } from '../../gpu-worker/src/resources';
import { playEpisodes, summarize, type PlayedEpisode } from '../../gpu-worker/src/rollout/evaluate';
import { trainOnEpisodes } from '../../gpu-worker/src/trainer/train-step';
import { calculatorExample, guessNumberExample, loadExampleTasks, type Example } from '../../resources/examples/index';
import type { TrainStats } from '../shared/engine-protocol';
import type { ChatMessage } from '../shared/chat';
import {
  flagShape,
  fromFlags,
  helpLines,
  TRAINING_OPTIONS,
  TrainingConfigSchema,
  WORKER_OPTIONS,
  WorkerSettingsShape,
  type TrainingConfig,
} from '../shared/options/index';
import { createPrng } from '../shared/prng';

const own = {
  task: z.enum(['calculator-agent', 'guess-number']).default('calculator-agent'),
  steps: z.coerce.number().int().min(0).default(30),
  tasksPerStep: z.coerce.number().int().positive().default(8),
  evalN: z.coerce.number().int().positive().default(100),
};

/** The training and worker options the demo takes (declared in src/shared/options/declarations.ts). */
const DEMO_TRAINING_KEYS = [
  'groupSize',
  'lr',
  'temperature',
  'defaultMaxTokens',
  'algo',
  'merge',
  'level',
  'clipLow',
  'clipHigh',
  'klCoef',
  'maxGradNorm',
  'microBatchTokens',
] as const;
const DEMO_WORKER_KEYS = ['model', 'seed', 'threads'] as const;
/** Where the demo departs from the worker's defaults: bigger groups, short calls, two threads. */
export const DEMO_PRESETS = { groupSize: 8, defaultMaxTokens: 96, threads: 2 } as const;

export const DemoOptionsSchema = z
  .object({
    ...own,
    ...flagShape(TRAINING_OPTIONS, DEMO_TRAINING_KEYS, DEMO_PRESETS),
    ...flagShape(WORKER_OPTIONS, DEMO_WORKER_KEYS, DEMO_PRESETS),
  })
  .strict();
export type DemoOptions = z.infer<typeof DemoOptionsSchema>;

export const demoHelp = [
  'agentjet demo [options]   load the built-in model and train it on an example task with GRPO',
  '  --task calculator-agent|guess-number   example task (default calculator-agent)',
  '  --steps K                  policy updates (default 30)',
  '  --tasks-per-step N         distinct tasks per update (default 8)',
  '  --eval-n N                 held-out episodes before and after (default 100)',
  ...helpLines(TRAINING_OPTIONS, { keys: DEMO_TRAINING_KEYS, presets: DEMO_PRESETS }),
  ...helpLines(WORKER_OPTIONS, { keys: DEMO_WORKER_KEYS, presets: DEMO_PRESETS }),
].join('\n');

/** The demo's training config and engine settings: presets, then the flags given. */
export function demoSettings(o: DemoOptions): {
  training: TrainingConfig;
  model: string;
  seed: number;
  threads: number;
} {
  const training = TrainingConfigSchema.parse(fromFlags(TRAINING_OPTIONS, o, DEMO_TRAINING_KEYS));
  const worker = z.object(WorkerSettingsShape).parse(fromFlags(WORKER_OPTIONS, o, DEMO_WORKER_KEYS));
  return {
    training,
    model: worker.model === 'builtin' ? BUILTIN_MODEL_DIR : worker.model,
    seed: worker.seed,
    threads: worker.threads ?? DEMO_PRESETS.threads,
  };
}

function show(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => {
      const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${c.function.arguments})`).join(' ');
      return `  ${m.role.padEnd(9)} ${[m.content ?? '', calls]
        .filter((s) => s !== '')
        .join(' ')
        .replaceAll('\n', ' ⏎ ')}`;
    })
    .join('\n');
}

/** What a demo step's update did (or that it had no signal). */
function updateLine(st: TrainStats | null): string {
  if (!st) return 'no signal (every group had equal rewards)';
  return (
    `loss ${st.loss.toFixed(4)} · kl ${st.approxKl.toFixed(4)} · clip ${st.clipFraction.toFixed(3)} ` +
    `· ${st.trainedTokens} tokens trained · v${st.weightVersion}`
  );
}

export async function runDemo(o: DemoOptions): Promise<void> {
  const d = demoSettings(o);
  const cfg = d.training;
  const example: Example<{ id: string }> = o.task === 'calculator-agent' ? calculatorExample : guessNumberExample;
  const engine = await EngineProcess.start({ onLog: (l) => process.stderr.write(`  engine: ${l}\n`) });
  try {
    const t0 = performance.now();
    const info = await engine.call('load', { path: d.model, threads: d.threads, seed: d.seed });
    console.log(
      `AgentJet demo · ${info.model} · ${(info.params / 1e6).toFixed(2)}M params · ${info.device}/${info.dtype} ` +
        `· torch ${info.torch} · ${info.threads} threads · loaded in ` +
        `${((performance.now() - t0) / 1000).toFixed(1)}s`,
    );
    const sampling = { maxTokens: cfg.defaultMaxTokens, temperature: cfg.temperature, topP: cfg.topP };
    const evalTasks = loadExampleTasks(example, 'eval').slice(0, o.evalN);
    const evaluate = async (label: string): Promise<PlayedEpisode<{ id: string }>[]> => {
      const t = performance.now();
      const played = await playEpisodes(engine, example.env, evalTasks, {
        sampling,
        seed: d.seed + 99,
        contextLength: info.contextLength,
      });
      const s = summarize(played);
      console.log(
        `${label}: held-out success ${(s.success * 100).toFixed(1)}% · reward ${s.rewardMean.toFixed(3)} · ` +
          `n=${s.episodes} · ${((performance.now() - t) / 1000).toFixed(1)}s`,
      );
      return played;
    };
    const before = await evaluate('eval before training');
    const first = before[0];
    if (first)
      console.log(
        `one ${example.name} episode (${first.task.id}, reward ` +
          `${first.result.reward}):\n${show(first.result.messages)}`,
      );

    const train = loadExampleTasks(example, 'train');
    const prng = createPrng(d.seed);
    for (let step = 1; step <= o.steps; step++) {
      const t = performance.now();
      const tasks = Array.from({ length: o.tasksPerStep }, () => prng.pick(train));
      const group = tasks.flatMap((task) => Array.from({ length: cfg.groupSize }, () => task));
      const played = await playEpisodes(engine, example.env, group, {
        sampling,
        seed: prng.int(0, 2 ** 31 - 1),
        episodePrefix: `s${step}-`,
        contextLength: info.contextLength,
      });
      const rollout = (performance.now() - t) / 1000;
      const s = summarize(played);
      const { built, stats: st } = await trainOnEpisodes(
        engine,
        played.map((p) => ({
          episodeId: p.episodeId,
          groupKey: p.task.id,
          reward: p.result.reward,
          timelines: p.calls,
        })),
        cfg,
      );
      const { samples, droppedEpisodes, merge } = built;
      const update = updateLine(st);
      console.log(
        `step ${String(step).padStart(2)}/${o.steps} · reward ${s.rewardMean.toFixed(3)} ` +
          `· success ${(s.success * 100).toFixed(0)}% · ` +
          `${played.length} episodes (${droppedEpisodes} zero-advantage) ` +
          `· ${merge.callsIn} calls → ${samples.length} samples ` +
          `(${merge.compressionRatio.toFixed(2)}× fewer tokens) · ${update} · ` +
          `rollout ${rollout.toFixed(1)}s · total ${((performance.now() - t) / 1000).toFixed(1)}s`,
      );
    }
    if (o.steps > 0) await evaluate('eval after training');
  } finally {
    await engine.dispose();
  }
}
