// Benchmark `engine`: generation tokens/s of the built-in model at batch 1 and 32 (KV cache,
// sampling at temperature 1, no early stop), and PPO training tokens/s (forward + backward +
// AdamW over 16 × 256-token samples), on this machine's device, with torch version and threads.
import { EngineProcess } from '../gpu-worker/src/engine/engine-process';
import type { GenerateRequest, TrainSample } from '../src/shared/engine-protocol';
import { BUILTIN_MODEL_DIR } from '../gpu-worker/src/resources';

export async function benchEngine(args: string[]): Promise<Record<string, unknown>> {
  const threads = Number(argValue(args, '--threads') ?? 2);
  const genTokens = Number(argValue(args, '--gen-tokens') ?? 64);
  const trainSamples = Number(argValue(args, '--train-samples') ?? 16);
  const seqLen = Number(argValue(args, '--seq-len') ?? 256);
  const engine = await EngineProcess.start({ onLog: (l) => process.stderr.write(`  engine: ${l}\n`) });
  try {
    const info = await engine.call('load', { path: BUILTIN_MODEL_DIR, threads, seed: 0 });
    console.log(
      `model ${info.model} · ${(info.params / 1e6).toFixed(2)}M params · ${info.device}/${info.dtype} · torch ${info.torch} · ${info.threads} threads`,
    );
    const { tokenIds } = await engine.call('render', {
      messages: [{ role: 'user', content: 'Tom has 12 apples and buys 7 more. How many apples does he have now?' }],
    });
    const request = (seed: number): GenerateRequest => ({
      promptIds: tokenIds,
      maxTokens: genTokens,
      temperature: 1,
      stopIds: [],
      seed,
    });
    await engine.call('generate', { requests: [request(0)] }); // warm-up
    const genTps = async (batch: number): Promise<number> => {
      const t0 = performance.now();
      const out = await engine.call('generate', { requests: Array.from({ length: batch }, (_, i) => request(i + 1)) });
      const tokens = out.results.reduce((n, r) => n + r.tokenIds.length, 0);
      return tokens / ((performance.now() - t0) / 1000);
    };
    const b1 = await genTps(1);
    console.log(`generate batch 1:  ${b1.toFixed(0)} tokens/s`);
    const batch = Number(argValue(args, '--batch') ?? 32);
    const b32 = await genTps(batch);
    console.log(`generate batch ${batch}: ${b32.toFixed(0)} tokens/s  (${(b32 / b1).toFixed(1)}× batch 1)`);
    const samples: TrainSample[] = Array.from({ length: trainSamples }, (_, s) => {
      const ids = Array.from({ length: seqLen }, (_, i) => (i * 31 + s * 7) % Math.max(2, info.vocabSize - 1));
      return {
        tokenIds: ids,
        lossMask: ids.map((_, i) => (i === 0 ? 0 : 1)),
        advantages: s % 2 === 0 ? 1 : -1,
        rolloutLogprobs: ids.map(() => -5),
      };
    });
    const hyper = { lr: 1e-6, microBatchTokens: 2048 };
    await engine.call('train_step', { samples: samples.slice(0, 2), hyper }); // warm-up
    const t0 = performance.now();
    const stats = await engine.call('train_step', { samples, hyper });
    const trainTps = stats.tokens / ((performance.now() - t0) / 1000);
    console.log(
      `train_step: ${trainTps.toFixed(0)} tokens/s over ${stats.tokens} tokens in ${stats.microBatches} micro-batches`,
    );
    return {
      bench: 'engine',
      gen_tps_b1: round(b1),
      gen_tps_b32: round(b32),
      train_tps: round(trainTps),
      params: info.params,
      torch: info.torch,
      device: info.device,
      threads: info.threads,
    };
  } finally {
    await engine.dispose();
  }
}

export function argValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

export const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;
