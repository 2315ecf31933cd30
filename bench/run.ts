// `npm run bench -- <name> [options]`: runs one benchmark; each prints a one-line JSON summary last.
// `--smoke` runs it at tiny sizes (seconds; no figure worth quoting) so CI notices a bench that rotted
// (scripts/bench-smoke.mjs runs every one): the bench's smoke options are appended after the ones
// given, and options given win (argValue reads a flag's first occurrence). A bench that fails exits
// non-zero and prints no summary.
import { benchAsync } from './async';
import { benchCampaign } from './campaign';
import { benchDistill } from './distill';
import { benchEngine } from './engine';
import { benchFamilies } from './families';
import { benchEvalNoise } from './eval-noise';
import { benchGpu } from './gpu';
import { benchHotswap } from './hotswap';
import { benchMemory } from './memory';
import { benchMerge } from './merge';
import { benchRewardModel } from './reward-model';
import { benchServer } from './server';
import { benchStore } from './store';
import { benchTrain } from './train';
import { benchTrl } from './trl';
import { benchWarmstart } from './warmstart';

type Bench = (args: string[]) => Promise<Record<string, unknown>>;

interface Entry {
  about: string;
  run: Bench;
  /** The options of `--smoke`: tiny sizes, seconds on the 2-core CPU. */
  smoke: readonly string[];
  /** CI's time limit for the smoke run (scripts/bench-smoke.mjs): about 3× its time on a quiet 2-core CPU. */
  smokeLimitS: number;
}

const benches: Record<string, Entry> = {
  async: {
    about:
      'sync colocated vs trainer + rollout replica, sync and --async (K 1/2 × corrections): episodes/min, held-out success, staleness, mismatch, sync ms, gen idle; replica tokens/s scaling',
    run: benchAsync,
    smoke: ['--smoke'],
    smokeLimitS: 240,
  },
  campaign: {
    about:
      'a 6-trial campaign (lr × group size, grid + successive halving, 2 min per trial) on the built-in model, killed mid-way and resumed; its report',
    run: benchCampaign,
    smoke: ['--trials', '2', '--minutes-per-trial', '0.1', '--eval-episodes', '2', '--kill-during-trial', '1'],
    smokeLimitS: 240,
  },
  engine: {
    about: 'engine generation tokens/s (batch 1, 32) and training tokens/s',
    run: benchEngine,
    smoke: ['--gen-tokens', '4', '--batch', '4', '--train-samples', '2', '--seq-len', '64'],
    smokeLimitS: 90,
  },
  distill: {
    about:
      'on-policy distillation from a teacher worker (the warm start after the RL run) vs RL on the verifiable reward: held-out success vs minutes, same start and budget',
    run: benchDistill,
    smoke: ['--smoke'],
    smokeLimitS: 240,
  },
  families: {
    about:
      'merge ratio of a --turns (10) user-turn tool episode per model family (tiny random models, real tokenizers and templates, forced replies): Qwen3 default template vs --keep-reasoning, Llama 3.1, gpt-oss, DeepSeek-V3, Gemma 3 (Hermes tools template)',
    run: benchFamilies,
    smoke: ['--turns', '2', '--families', 'qwen3'],
    smokeLimitS: 180,
  },
  'eval-noise': {
    about:
      "one held-out evaluation's run-to-run noise: the warm start's eval split played --repeats times; sd across repeats vs the binomial SE",
    run: benchEvalNoise,
    smoke: ['--repeats', '2', '--eval-episodes', '4'],
    smokeLimitS: 180,
  },
  gpu: {
    about:
      'GPU (python -m agentjet_bench.gpu): random-init Qwen2.5-1.5B/7B shapes, continuous-batching tokens/s at 1/16/64 episodes with/without prefix reuse, LoRA train_step at 4k/8k/16k tokens with peak memory; no CUDA: says so and fails',
    run: benchGpu,
    smoke: ['--smoke'],
    smokeLimitS: 240,
  },
  hotswap: {
    about:
      'time from handing new client code to the runner to its first completed LLM call; server weights and engine untouched',
    run: benchHotswap,
    smoke: ['--swaps', '1', '--max-tokens', '8'],
    smokeLimitS: 90,
  },
  memory: {
    about:
      'train-step peak memory and time with checkpointing + chunked logprobs on vs off at 8k/16k tokens; FSDP 2 ranks vs 1 process',
    run: benchMemory,
    smoke: [
      '--hidden',
      '64',
      '--layers',
      '1',
      '--heads',
      '4',
      '--kv-heads',
      '2',
      '--intermediate',
      '128',
      '--vocab',
      '512',
      '--lengths',
      '256',
      '--fsdp-tokens',
      '64',
    ],
    smokeLimitS: 120,
  },
  merge: {
    about: 'policy-update time with no / linear / tree timeline merging on the same episodes',
    run: benchMerge,
    smoke: [
      '--settings',
      'calc,2,group',
      '--tasks',
      '1',
      '--episodes',
      '1',
      '--repeats',
      '1',
      '--fill',
      '0.35',
      '--group',
      '4',
      '--max-tokens',
      '24',
    ],
    smokeLimitS: 210,
  },
  'reward-model': {
    about:
      'learned rewards: reward-model training time and held-out accuracy, ONNX vs PyTorch, scoring conversations/s in one client process, policy trained on the RM score alone vs the verifiable reward',
    run: benchRewardModel,
    smoke: [
      '--label-tasks',
      '4',
      '--label-group',
      '2',
      '--minutes',
      '0.1',
      '--clients',
      '1',
      '--eval-episodes',
      '2',
      '--skip-policy',
    ],
    smokeLimitS: 180,
  },
  store: {
    about:
      'workbench SQLite store at 100,000 episodes: rows/s ingested, ms per filtered page, episodes/s with timelines, bytes per episode, detail ms',
    run: benchStore,
    smoke: ['--episodes', '300', '--detailed', '20', '--calls', '3'],
    smokeLimitS: 60,
  },
  server: {
    about: 'swarm server: overhead per call, tokens/s at 1–64 concurrent episodes vs unbatched, open episodes held',
    run: benchServer,
    smoke: [
      '--size',
      'none',
      '--calls',
      '1',
      '--streams',
      '4',
      '--episodes',
      '2',
      '--turns',
      '2',
      '--max-tokens',
      '4',
      '--concurrency',
      '2',
      '--overhead-calls',
      '3',
      '--fairness-streams',
      '2',
      '--fairness-rows',
      '2',
      '--fairness-calls',
      '2',
      '--max-open',
      '50',
      '--overhead-n',
      '3',
    ],
    smokeLimitS: 180,
  },
  train: {
    about:
      "calculator-agent training: held-out success gain in --minutes, the client frameworks' reward curves with SEs and noise floors (--paired: task by task), chaos (clients SIGKILLed) with no lost episode",
    run: benchTrain,
    smoke: [
      '--minutes',
      '0.1',
      '--frameworks',
      'fetch',
      '--clients',
      '1',
      '--batch',
      '1',
      '--group-size',
      '2',
      '--eval-episodes',
      '2',
      '--kill-every-s',
      '3',
    ],
    smokeLimitS: 150,
  },
  trl: {
    about:
      "our default training vs Hugging Face TRL's GRPOTrainer on the same model, episode, batch and minutes: held-out success curves, updates, episodes/min",
    run: benchTrl,
    smoke: ['--smoke'],
    smokeLimitS: 300,
  },
  warmstart: {
    about: 'held-out success of the warm-started built-in model on both example tasks',
    run: benchWarmstart,
    smoke: ['--n', '1', '--max-tokens', '24'],
    smokeLimitS: 90,
  },
};

async function main(): Promise<void> {
  const [name, ...given] = process.argv.slice(2);
  if (name === '--list') {
    // for scripts/bench-smoke.mjs: each bench's name and its smoke run's time limit
    console.log(JSON.stringify(Object.entries(benches).map(([n, b]) => ({ name: n, smokeLimitS: b.smokeLimitS }))));
    return;
  }
  const bench = name ? benches[name] : undefined;
  if (!bench) {
    console.error(
      `usage: npm run bench -- <name> [options]\n${Object.entries(benches)
        .map(([n, b]) => `  ${n.padEnd(10)} ${b.about}`)
        .join('\n')}`,
    );
    process.exit(2);
  }
  const smoke = given.includes('--smoke');
  const args = smoke ? [...given.filter((a) => a !== '--smoke'), ...bench.smoke] : given;
  const summary = await bench.run(args);
  console.log(JSON.stringify(smoke ? { ...summary, smoke: true } : summary));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
