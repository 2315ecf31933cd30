// Benchmark `memory`: peak memory and time of one train step of a randomly initialised mid-size
// Qwen2-architecture model (agentjet_bench.random_model, ~20M parameters, a 16k vocabulary) on 8k- and
// 16k-token samples with activation checkpointing + chunked logprobs on ("lean") vs off (full activations and
// [tokens × vocab] fp32 logits), side by side on one engine (dry runs: forward + backward + gradient
// norm, the weights untouched); then FSDP over 2 gloo ranks vs 1 process on the same real step:
// per-rank parameter + AdamW bytes and the loss. Peaks are the engine's step peaks (PROTOCOL.md:
// on Linux CPU the process's peak resident set during the step, malloc told to return freed blocks).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineProcess } from '../gpu-worker/src/engine/engine-process';
import type { TrainSample, TrainStats } from '../src/shared/engine-protocol';
import { argValue, round } from './engine';
import { benchModule } from './python-bench';

const GiB = 2 ** 30;
// Large allocations are mmapped and given back when freed, so the resident set follows the tensors.
const ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

interface Shape {
  hidden: number;
  layers: number;
  heads: number;
  kvHeads: number;
  intermediate: number;
  vocab: number;
}

function createModel(dir: string, s: Shape): { path: string; params: number } {
  const run = benchModule('random_model', [
    '--out',
    dir,
    '--hidden',
    String(s.hidden),
    '--layers',
    String(s.layers),
    '--heads',
    String(s.heads),
    '--kv-heads',
    String(s.kvHeads),
    '--intermediate',
    String(s.intermediate),
    '--vocab',
    String(s.vocab),
    '--context',
    '32768',
  ]);
  const out = spawnSync(run.python, run.args, { env: run.env, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`random_model failed: ${out.stderr}`);
  const line = out.stdout.trim().split('\n').pop() ?? '{}';
  return JSON.parse(line) as { path: string; params: number };
}

/** One sample of `n` tokens, every token but the first trained (the most logits a step can need). */
function sample(n: number, vocab: number, seed: number, advantage: number): TrainSample {
  const ids = Array.from({ length: n }, (_, i) => ((i * 7919 + seed * 104729) % (vocab - 3)) + 3);
  return {
    tokenIds: ids,
    lossMask: ids.map((_, i) => (i === 0 ? 0 : 1)),
    advantages: advantage,
    rolloutLogprobs: ids.map(() => -Math.log(vocab)),
  };
}

const gib = (b: number | null | undefined): string => (b == null ? 'n/a' : `${(b / GiB).toFixed(2)} GiB`);

async function engineWith(procs: number, threads: number, path: string): Promise<EngineProcess> {
  const engine = await EngineProcess.start({
    procs,
    env: { ...ENV, AGENTJET_ENGINE_THREADS: String(threads) },
    startTimeoutMs: 600_000,
    onLog: (l) => process.stderr.write(`  engine: ${l}\n`),
  });
  await engine.call('load', { path, threads, seed: 0, microBatchTokens: 16384 });
  return engine;
}

interface Row {
  tokens: number;
  lean: TrainStats;
  off: TrainStats;
  leanS: number;
  offS: number;
}

async function leanVsOff(engine: EngineProcess, lengths: number[], vocab: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of lengths) {
    const samples = [sample(n, vocab, n, 1)];
    const step = async (lean: boolean): Promise<{ stats: TrainStats; s: number }> => {
      const t0 = performance.now();
      const stats = await engine.call('train_step', {
        samples,
        hyper: { lr: 1e-5, dryRun: true, microBatchTokens: n, activationCheckpointing: lean, chunkedLogprobs: lean },
      });
      return { stats, s: (performance.now() - t0) / 1000 };
    };
    const lean = await step(true);
    const off = await step(false);
    rows.push({ tokens: n, lean: lean.stats, off: off.stats, leanS: lean.s, offS: off.s });
    console.log(
      `${String(n).padStart(6)} tokens  lean peak ${gib(lean.stats.peakMemoryBytes).padEnd(10)} ${lean.s.toFixed(1).padStart(6)} s   ` +
        `off peak ${gib(off.stats.peakMemoryBytes).padEnd(10)} ${off.s.toFixed(1).padStart(6)} s   peak ratio ${ratio(lean.stats.peakMemoryBytes, off.stats.peakMemoryBytes).toFixed(2)}  ` +
        `time ratio ${(lean.s / off.s).toFixed(2)}  |Δloss| ${Math.abs(lean.stats.loss - off.stats.loss).toExponential(1)}`,
    );
  }
  return rows;
}

const ratio = (a: number | null | undefined, b: number | null | undefined): number => (a != null && b ? a / b : NaN);
const stateBytes = (s: TrainStats): number[] => (s.rankMemory ?? []).map((r) => r.paramBytes + r.optimizerBytes);

export async function benchMemory(args: string[]): Promise<Record<string, unknown>> {
  const shape: Shape = {
    hidden: Number(argValue(args, '--hidden') ?? 512),
    layers: Number(argValue(args, '--layers') ?? 4),
    heads: Number(argValue(args, '--heads') ?? 8),
    kvHeads: Number(argValue(args, '--kv-heads') ?? 2),
    intermediate: Number(argValue(args, '--intermediate') ?? 1408),
    vocab: Number(argValue(args, '--vocab') ?? 16384),
  };
  const lengths = (argValue(args, '--lengths') ?? '8192,16384')
    .split(',')
    .map(Number)
    .filter((n) => n > 0); // `--lengths 0`: FSDP part only
  const fsdpTokens = Number(argValue(args, '--fsdp-tokens') ?? 1024);
  const threads = Number(argValue(args, '--threads') ?? 2);
  const dir = mkdtempSync(join(tmpdir(), 'aj-bench-memory-'));
  try {
    const model = createModel(join(dir, 'model'), shape);
    console.log(
      `random Qwen2 model: ${(model.params / 1e6).toFixed(1)}M parameters (hidden ${shape.hidden}, ${shape.layers} layers, ${shape.heads}/${shape.kvHeads} heads, vocab ${shape.vocab}), fp32 on CPU, ${threads} threads`,
    );
    console.log(
      'lean = activation checkpointing + chunked logprobs; off = neither (full activations, full fp32 logits); dry-run steps, peak = step peak RSS',
    );
    const one = await engineWith(1, threads, model.path);
    let rows: Row[];
    let single: TrainStats;
    const fsdpSamples = [
      sample(fsdpTokens, shape.vocab, 1, 1),
      sample(fsdpTokens, shape.vocab, 2, 0.6),
      sample(fsdpTokens / 2, shape.vocab, 3, -0.3),
      sample(fsdpTokens / 2, shape.vocab, 4, 0.8),
    ];
    const hyper = { lr: 1e-4, microBatchTokens: fsdpTokens };
    try {
      rows = await leanVsOff(one, lengths, shape.vocab);
      single = await one.call('train_step', { samples: fsdpSamples, hyper });
    } finally {
      await one.dispose();
    }
    console.log(
      `FSDP: 2 gloo ranks × ${Math.max(1, Math.floor(threads / 2))} thread vs 1 process, one real step of ${fsdpSamples.length} samples (${fsdpTokens} tokens max)`,
    );
    const two = await engineWith(2, Math.max(1, Math.floor(threads / 2)), model.path);
    let sharded: TrainStats;
    try {
      sharded = await two.call('train_step', { samples: fsdpSamples, hyper });
    } finally {
      await two.dispose();
    }
    const perRank = stateBytes(sharded);
    const base = stateBytes(single)[0] ?? NaN;
    const rankRatio = Math.max(...perRank) / base;
    const lossDiff = Math.abs(sharded.loss - single.loss) / Math.max(1e-12, Math.abs(single.loss));
    const normDiff = Math.abs(sharded.gradNorm - single.gradNorm) / Math.max(1e-12, Math.abs(single.gradNorm));
    console.log(
      `  1 process: params + AdamW ${gib(base)}, loss ${single.loss.toFixed(6)}, gradNorm ${single.gradNorm.toFixed(6)}, ${single.seconds.toFixed(1)} s`,
    );
    console.log(
      `  2 ranks:   params + AdamW per rank ${perRank.map(gib).join(' / ')} (ratio ${rankRatio.toFixed(3)}), loss ${sharded.loss.toFixed(6)}, gradNorm ${sharded.gradNorm.toFixed(6)}, ${sharded.seconds.toFixed(1)} s`,
    );
    const at16 = rows.find((r) => r.tokens === 16384) ?? rows[rows.length - 1];
    const peakRatio = at16 ? ratio(at16.lean.peakMemoryBytes, at16.off.peakMemoryBytes) : NaN;
    const orNull = (x: number): number | null => (Number.isFinite(x) ? x : null);
    console.log(
      `targets: peak ratio at 16k ${peakRatio.toFixed(2)} (≤ 0.5: ${peakRatio <= 0.5 ? 'met' : 'missed'}); FSDP per-rank state ${rankRatio.toFixed(3)} (≈ 0.5: ${Math.abs(rankRatio - 0.5) < 0.05 ? 'met' : 'missed'}); loss rel diff ${lossDiff.toExponential(1)}, grad-norm rel diff ${normDiff.toExponential(1)} (≤ 1e-5: ${Math.max(lossDiff, normDiff) <= 1e-5 ? 'met' : 'missed'})`,
    );
    return {
      bench: 'memory',
      peak_ratio_16k: orNull(round(peakRatio, 3)),
      step_time_ratio_16k: at16 ? round(at16.leanS / at16.offS, 2) : null,
      fsdp_rank_mem_ratio: round(rankRatio, 3),
      fsdp_loss_rel_diff: Number(lossDiff.toExponential(2)),
      fsdp_grad_norm_rel_diff: Number(normDiff.toExponential(2)),
      params: model.params,
      peak_gib: Object.fromEntries(
        rows.map((r) => [
          r.tokens,
          { lean: round((r.lean.peakMemoryBytes ?? 0) / GiB, 2), off: round((r.off.peakMemoryBytes ?? 0) / GiB, 2) },
        ]),
      ),
      step_s: Object.fromEntries(rows.map((r) => [r.tokens, { lean: round(r.leanS, 1), off: round(r.offS, 1) }])),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
