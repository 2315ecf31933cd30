// Benchmark `server`: the swarm server's serving, side by side in one run, for the built-in model
// and a randomly initialised mid-size Qwen2 model (`--size`, built from a config, no download):
// (1) latency the server adds per call over the engine's time (p50/p99); (2) generated tokens/s at
// 1, 8, 32 and 64 concurrent episodes against one-at-a-time engine calls; (3) time to first token
// and inter-token latency of 32 concurrent SSE streams; (4) 10-turn episodes with a long
// system + tools prompt at 16 concurrent: prompt tokens the engine computed with prefix reuse vs
// all of them (what an engine without reuse computes), and episode throughput against the recorded
// figure of the static-batch engine the continuous batcher replaced (STATIC_BASELINE: that engine is
// gone; the ratio is given only for the settings it was measured with); (5) for the built-in model,
// the open episodes held and the RSS. A real worker on a free port.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_MODEL_DIR } from '../gpu-worker/src/resources';
import { startWorker, type Worker } from '../gpu-worker/src/worker';
import { argValue, round } from './engine';
import { benchModule } from './python-bench';
import { apiOverheads, reportApiOverheads, reportTranslationCost, translationCostUs } from './server-apis';
import {
  abort,
  calibratedPrompt,
  chat,
  claim,
  multiTurn,
  percentile,
  PROMPTS,
  throughput,
  timedStream,
  unbatched,
  type EpisodesResult,
} from './server-load';

interface Options {
  threads: number;
  maxTokens: number;
  calls: number;
  streams: number;
  episodes: number;
  turns: number;
  turnTokens: number;
  systemTokens: number;
  maxOpen: number;
}

/**
 * Multi-turn episodes/s of the static-batch engine (static batches, chunked re-prefill, no prefix
 * reuse) that the continuous batcher replaced and #20 deleted, measured by this benchmark at its
 * defaults (`npm run bench -- server`: 16 × 10-turn episodes, 16 tokens a turn, a 512-token system
 * + tools prompt, 2 engine threads) on the project's 2-core CPU, 2026-12-02 (commit 22edf14).
 */
const STATIC_BASELINE = {
  episodesPerS: { mid: 0.103, builtin: 0.786 } as Readonly<Record<string, number>>,
  settings: { threads: 2, episodes: 16, turns: 10, turnTokens: 16, systemTokens: 512 },
};

/** The recorded baseline for this model and these settings, or why there is none. */
function staticBaseline(label: string, builtinModel: boolean, o: Options): number | string {
  const base = STATIC_BASELINE.episodesPerS[label];
  if (base === undefined || (label === 'builtin' && !builtinModel)) return 'no figure was recorded for this model';
  const differ = Object.entries(STATIC_BASELINE.settings).filter(([k, v]) => o[k as keyof Options] !== v);
  if (differ.length > 0) return `it was recorded at the defaults (${differ.map(([k]) => k).join(', ')} differ)`;
  return base;
}

async function worker(model: string, dir: string, threads: number): Promise<Worker> {
  return startWorker(
    {
      model,
      port: 0,
      runDir: join(dir, `run-${Date.now()}`),
      threads,
      seed: 0,
      episodeTimeoutS: 3600,
      maxEpisodeTimeoutS: 3600,
      // one process stands in for thousands of clients here: no per-address connection bound
      maxConnectionsPerAddress: 0,
      training: { strategy: 'C1', batch: 100_000 },
    },
    { log: () => undefined },
  );
}

/** Latency minus the engine time the server reports for the call (x-agentjet-engine-ms). */
async function overhead(w: Worker, n: number): Promise<{ p50: number; p99: number }> {
  const c = await claim(w, 'bench-latency');
  const out: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const t0 = performance.now();
    const { engineMs } = await chat(c, {
      messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }],
      max_tokens: 8,
      seed: i,
    });
    if (i >= 3) out.push(performance.now() - t0 - engineMs);
  }
  await abort(w, c.episodeId);
  return { p50: percentile(out, 50), p99: percentile(out, 99) };
}

async function streams(
  w: Worker,
  n: number,
  maxTokens: number,
): Promise<{ ttft50: number; ttft99: number; itl50: number; itl99: number; chunksPerStream: number }> {
  const claims = await Promise.all(Array.from({ length: n }, (_, i) => claim(w, `bench-stream-${i % 8}`)));
  const runs = await Promise.all(
    claims.map((c, i) =>
      timedStream(c, {
        messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }],
        max_tokens: maxTokens,
        seed: 500 + i,
      }),
    ),
  );
  await Promise.all(claims.map((c) => abort(w, c.episodeId)));
  const gaps = runs.flatMap((r) => r.gaps);
  const ttfts = runs.map((r) => r.ttft);
  return {
    ttft50: percentile(ttfts, 50),
    ttft99: percentile(ttfts, 99),
    itl50: percentile(gaps, 50),
    itl99: percentile(gaps, 99),
    chunksPerStream: runs.reduce((a, r) => a + r.chunks, 0) / n,
  };
}

async function prefilled(w: Worker): Promise<number> {
  const s = await w.engine.call('cache_stats', {});
  return s.prefixCache?.prefilledTokens ?? 0;
}

interface ModelFigures {
  [key: string]: number | string;
}

async function benchModel(label: string, model: string, dir: string, o: Options): Promise<ModelFigures> {
  const f: ModelFigures = {};
  const w = await worker(model, dir, o.threads);
  try {
    const info = w.engine.info!;
    console.log(
      `\n[${label}] ${info.model} · ${(info.params / 1e6).toFixed(1)}M params · ${info.device}/${info.dtype} · torch ${info.torch} · ${info.threads} threads · context ${info.contextLength}`,
    );
    await throughput(w, 2, 1, 4); // warm-up
    const o1 = await overhead(w, 20);
    console.log(`[${label}] server overhead per call: p50 ${o1.p50.toFixed(2)} ms · p99 ${o1.p99.toFixed(2)} ms`);
    f['overhead_p50_ms'] = round(o1.p50, 2);
    f['overhead_p99_ms'] = round(o1.p99, 2);
    const base = await unbatched(w, 4, o.maxTokens);
    console.log(`[${label}] one-at-a-time engine calls (render + generate): ${base.toFixed(1)} tokens/s`);
    f['tps_unbatched'] = round(base);
    for (const n of [1, 8, 32, 64]) {
      const tps = await throughput(w, n, o.calls, o.maxTokens);
      console.log(
        `[${label}] ${String(n).padStart(2)} concurrent episodes: ${tps.toFixed(1)} tokens/s (${(tps / base).toFixed(1)}× one-at-a-time)`,
      );
      f[`tps_c${n}`] = round(tps);
    }
    f['batching_gain_c32'] = round(Number(f['tps_c32']) / base, 2);
    const s = await streams(w, o.streams, o.maxTokens);
    console.log(
      `[${label}] ${o.streams} concurrent streams: time to first token p50 ${s.ttft50.toFixed(0)} ms / p99 ${s.ttft99.toFixed(0)} ms · inter-token p50 ${s.itl50.toFixed(1)} ms / p99 ${s.itl99.toFixed(1)} ms · ${s.chunksPerStream.toFixed(1)} content chunks per stream`,
    );
    Object.assign(f, {
      ttft_p50_ms_c32: round(s.ttft50),
      ttft_p99_ms_c32: round(s.ttft99),
      itl_p50_ms_c32: round(s.itl50, 2),
      itl_p99_ms_c32: round(s.itl99, 2),
      chunks_per_stream_c32: round(s.chunksPerStream),
    });
    const prompt = await calibratedPrompt(w, Math.min(o.systemTokens, Math.floor(info.contextLength * 0.4)));
    const before = await prefilled(w);
    const turns: EpisodesResult = await multiTurn(w, o.episodes, o.turns, o.turnTokens, prompt);
    const computed = (await prefilled(w)) - before;
    console.log(
      `[${label}] ${o.episodes} × ${o.turns}-turn episodes (system + tools prompt of ${prompt.tokens} tokens): ${turns.seconds.toFixed(1)} s, ${(turns.episodes / turns.seconds).toFixed(3)} episodes/s · ` +
        `prompt tokens ${turns.promptTokens}, computed ${computed} (${(turns.promptTokens / Math.max(1, computed)).toFixed(1)}× fewer with prefix reuse; ${turns.cachedTokens} reported cached)`,
    );
    f['prefill_tokens_10turn'] = turns.promptTokens;
    f['prefill_computed_10turn'] = computed;
    f['prefill_saved_ratio_10turn'] = round(turns.promptTokens / Math.max(1, computed), 2);
    f['episodes_per_s_10turn'] = round(turns.episodes / turns.seconds, 4);
    const baseline = staticBaseline(label, model === BUILTIN_MODEL_DIR, o);
    if (typeof baseline === 'number') {
      const speedup = turns.episodes / turns.seconds / baseline;
      console.log(
        `[${label}] vs the static-batch engine's recorded ${baseline} episodes/s ` +
          `(2026-12-02, same settings, 2-core CPU): ${speedup.toFixed(2)}× episode throughput`,
      );
      f['baseline_episodes_per_s_10turn'] = baseline;
      f['episode_speedup_10turn'] = round(speedup, 2);
    } else {
      console.log(`[${label}] no episode speed-up over the static-batch engine: ${baseline}`);
    }
    if (label === 'builtin' && o.maxOpen > 0) {
      const open = await openEpisodes(w, o.maxOpen);
      console.log(
        `[${label}] open episodes held: ${open.held} · RSS ${open.rss.toFixed(0)} MB, ${open.rssLater.toFixed(0)} MB 3 s later`,
      );
      f['max_open_episodes'] = open.held;
      f['rss_mb'] = round(open.rssLater);
    }
  } finally {
    await w.dispose();
  }
  return f;
}

const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;

async function openEpisodes(w: Worker, max: number): Promise<{ held: number; rss: number; rssLater: number }> {
  const ids: string[] = [];
  const rssLimit = rssMb() + 2048;
  while (ids.length < max && rssMb() < rssLimit) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(500, max - ids.length) }, (_, i) => claim(w, `bench-open-${i % 16}`)),
    );
    ids.push(...batch.map((c) => c.episodeId));
  }
  const open = w.swarm.status().episodes.open;
  const rss = rssMb();
  await new Promise((r) => setTimeout(r, 3000));
  const rssLater = rssMb();
  for (let i = 0; i < ids.length; i += 500) await Promise.all(ids.slice(i, i + 500).map((id) => abort(w, id)));
  return { held: open, rss, rssLater };
}

/** Writes the random-init model folder of preset `size` (agentjet_bench.random_model) into `dir`. */
function presetModel(size: string, dir: string): string {
  const out = join(dir, `qwen2-${size}`);
  const run = benchModule('random_model', ['--size', size, '--out', out, '--tokenizer', BUILTIN_MODEL_DIR]);
  execFileSync(run.python, run.args, { env: run.env, stdio: ['ignore', 'ignore', 'inherit'] });
  return out;
}

export async function benchServer(args: string[]): Promise<Record<string, unknown>> {
  const size = argValue(args, '--size') ?? 'mid';
  const o: Options = {
    threads: Number(argValue(args, '--threads') ?? 2),
    maxTokens: Number(argValue(args, '--max-tokens') ?? 32),
    calls: Number(argValue(args, '--calls') ?? 2),
    streams: Number(argValue(args, '--streams') ?? 32),
    episodes: Number(argValue(args, '--episodes') ?? 16),
    turns: Number(argValue(args, '--turns') ?? 10),
    turnTokens: Number(argValue(args, '--turn-tokens') ?? 16),
    systemTokens: Number(argValue(args, '--system-tokens') ?? 512),
    maxOpen: Number(argValue(args, '--max-open') ?? 20_000),
  };
  const model = argValue(args, '--model');
  console.log(
    'bench server: per model, (1) latency the server adds per call (p50/p99); (2) generated tokens/s at 1, 8, 32, 64 concurrent episodes vs one-at-a-time engine calls;',
  );
  console.log(
    `  (3) time to first token and inter-token latency of ${o.streams} concurrent SSE streams; (4) ${o.episodes} concurrent ${o.turns}-turn episodes with a long system + tools prompt:`,
  );
  console.log(
    '  prompt tokens computed with prefix reuse vs all prompt tokens (no reuse), and episode throughput vs the ' +
      "static-batch engine's recorded figure;",
  );
  console.log(
    `  (5) open episodes held. Models: the built-in one and a random-init Qwen2 of size "${size}" (threads ${o.threads}, max_tokens ${o.maxTokens}).`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'aj-bench-server-'));
  try {
    const builtin = args.includes('--skip-builtin')
      ? {}
      : await benchModel('builtin', model ?? BUILTIN_MODEL_DIR, dir, o);
    const mid = size === 'none' ? {} : await benchModel(size, presetModel(size, dir), dir, { ...o, maxOpen: 0 });
    const prefixed = Object.fromEntries(Object.entries(builtin).map(([k, v]) => [`builtin_${k}`, v]));
    // The CPU cost each inference API adds per call (chat completions, Responses, Messages) on the built-in model.
    const n = Number(argValue(args, '--overhead-n') ?? 40);
    const aw = await worker(model ?? BUILTIN_MODEL_DIR, dir, o.threads);
    let apis: Record<string, unknown>;
    try {
      apis = { ...reportApiOverheads(await apiOverheads(aw, n), n), ...reportTranslationCost(translationCostUs()) };
    } finally {
      await aw.dispose();
    }
    return { bench: 'server', size, ...mid, ...prefixed, ...apis };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
