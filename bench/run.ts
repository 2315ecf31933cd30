// `npm run bench -- <name> [options]`: runs one benchmark; each prints a one-line JSON summary last.
import { benchAsync } from './async';
import { benchCampaign } from './campaign';
import { benchEngine } from './engine';
import { benchGpu } from './gpu';
import { benchHotswap } from './hotswap';
import { benchMemory } from './memory';
import { benchMerge } from './merge';
import { benchRewardModel } from './reward-model';
import { benchServer } from './server';
import { benchStore } from './store';
import { benchTrain } from './train';
import { benchWarmstart } from './warmstart';

type Bench = (args: string[]) => Promise<Record<string, unknown>>;

const benches: Record<string, { about: string; run: Bench }> = {
  async: {
    about:
      'sync colocated vs trainer + rollout replica, sync and --async (K 1/2 × corrections): episodes/min, held-out success, staleness, mismatch, sync ms, gen idle; replica tokens/s scaling (--smoke: quick)',
    run: benchAsync,
  },
  campaign: {
    about:
      'a 6-trial campaign (lr × group size, grid + successive halving, 2 min per trial) on the built-in model, killed mid-way and resumed; its report',
    run: benchCampaign,
  },
  engine: { about: 'engine generation tokens/s (batch 1, 32) and training tokens/s', run: benchEngine },
  gpu: {
    about:
      'GPU (python -m agentjet_bench.gpu): random-init Qwen2.5-1.5B/7B shapes, continuous-batching tokens/s at 1/16/64 episodes with/without prefix reuse, LoRA train_step at 4k/8k/16k tokens with peak memory; no CUDA: says so and fails',
    run: benchGpu,
  },
  hotswap: {
    about:
      'time from handing new client code to the runner to its first completed LLM call; server weights and engine untouched',
    run: benchHotswap,
  },
  memory: {
    about:
      'train-step peak memory and time with checkpointing + chunked logprobs on vs off at 8k/16k tokens; FSDP 2 ranks vs 1 process',
    run: benchMemory,
  },
  merge: { about: 'policy-update time with no / linear / tree timeline merging on the same episodes', run: benchMerge },
  'reward-model': {
    about:
      'learned rewards: reward-model training time and held-out accuracy, ONNX vs PyTorch, scoring conversations/s in one client process, policy trained on the RM score alone vs the verifiable reward',
    run: benchRewardModel,
  },
  store: {
    about:
      'workbench SQLite store at 100,000 episodes: rows/s ingested, ms per filtered page, episodes/s with timelines, bytes per episode, detail ms',
    run: benchStore,
  },
  server: {
    about: 'swarm server: overhead per call, tokens/s at 1–64 concurrent episodes vs unbatched, open episodes held',
    run: benchServer,
  },
  train: {
    about:
      "calculator-agent training: held-out success gain in --minutes, four client frameworks' reward curves, chaos (clients SIGKILLed) with no lost episode",
    run: benchTrain,
  },
  warmstart: {
    about: 'held-out success of the warm-started built-in model on both example tasks',
    run: benchWarmstart,
  },
};

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const bench = name ? benches[name] : undefined;
  if (!bench) {
    console.error(
      `usage: npm run bench -- <name> [options]\n${Object.entries(benches)
        .map(([n, b]) => `  ${n.padEnd(10)} ${b.about}`)
        .join('\n')}`,
    );
    process.exit(2);
  }
  const summary = await bench.run(args);
  console.log(JSON.stringify(summary));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
