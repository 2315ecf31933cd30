// Benchmark `server`: what the swarm server costs and gains on top of the engine. (1) Latency the
// server adds per chat call over the engine's own time for it (render + generate), p50/p99, one
// call at a time. (2) Generated tokens/s through the OpenAI API at 1, 8, 32 and 64 concurrent
// episodes (calls batched by the decode scheduler) against one-at-a-time engine generate calls
// in the same run. (3) The most concurrently open episodes the server holds (claims up to
// --max-open) and the process RSS then and a few seconds later (worker and load generator share
// the process). Runs a real worker with the built-in model (or --model) on a free port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_MODEL_DIR } from '../gpu-worker/src/resources';
import { startWorker, type Worker } from '../gpu-worker/src/worker';
import type { ClaimResponse } from '../src/shared/swarm-protocol';
import { argValue, round } from './engine';
import { apiOverheads, reportApiOverheads, reportTranslationCost, translationCostUs } from './server-apis';

const PROMPTS = [
  'Tom has 12 apples and buys 7 more. How many apples does he have now?',
  'What is 345 + 678?',
  'A box holds 9 pens. How many pens are in 6 boxes?',
  'I am thinking of a number between 1 and 100. Guess it.',
];

async function claim(w: Worker, clientId: string): Promise<ClaimResponse> {
  const res = await fetch(`${w.url}/swarm/v1/episodes`, {
    method: 'POST', headers: { authorization: `Bearer ${w.tokens.join}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, kind: 'eval' }),
  });
  if (res.status !== 201) throw new Error(`claim failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as ClaimResponse;
}

async function abort(w: Worker, episodeId: string): Promise<void> {
  await fetch(`${w.url}/swarm/v1/episodes/${episodeId}/abort`, { method: 'POST', headers: { authorization: `Bearer ${w.tokens.join}` } });
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** Latency minus the engine time the server reports for the call (x-agentjet-engine-ms). */
async function overhead(w: Worker, n: number, maxTokens: number): Promise<{ p50: number; p99: number }> {
  const c = await claim(w, 'bench-latency');
  const out: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(`${c.baseUrl}/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: c.model, messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length] }], max_tokens: maxTokens, seed: i }),
    });
    await res.json();
    const total = performance.now() - t0;
    if (i >= 3) out.push(total - Number(res.headers.get('x-agentjet-engine-ms')));
  }
  await abort(w, c.episodeId);
  return { p50: percentile(out, 50), p99: percentile(out, 99) };
}

/**
 * Tokens/s with `n` episodes each making `calls` calls (at least 16 calls in all) concurrently
 * through the API. At n = 1 the prompts and seeds are those of the one-at-a-time baseline.
 */
async function throughput(w: Worker, n: number, minCalls: number, maxTokens: number): Promise<number> {
  const calls = Math.max(minCalls, Math.ceil(16 / n));
  const claims = await Promise.all(Array.from({ length: n }, (_, i) => claim(w, `bench-c${n}-${i % 8}`)));
  const t0 = performance.now();
  const tokens = await Promise.all(
    claims.map(async (c, i) => {
      let total = 0;
      for (let k = 0; k < calls; k++) {
        // Plain fetch keeps the load generator (same process, same CPUs) light.
        const res = await fetch(`${c.baseUrl}/chat/completions`, {
          method: 'POST', headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: c.model, messages: [{ role: 'user', content: PROMPTS[(i + k) % PROMPTS.length]! }], max_tokens: maxTokens, seed: i * 100 + k }),
        });
        const r = (await res.json()) as { usage?: { completion_tokens: number } };
        total += r.usage?.completion_tokens ?? 0;
      }
      return total;
    }),
  );
  const tps = tokens.reduce((a, b) => a + b, 0) / ((performance.now() - t0) / 1000);
  await Promise.all(claims.map((c) => abort(w, c.episodeId)));
  return tps;
}

/** Tokens/s of the same requests as one-at-a-time engine calls (render + generate; no server, no batching). */
async function unbatched(w: Worker, n: number, maxTokens: number): Promise<number> {
  let tokens = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const prompt = await w.engine.call('render', { messages: [{ role: 'user', content: PROMPTS[i % PROMPTS.length]! }] });
    const out = await w.engine.call('generate', { requests: [{ promptIds: prompt.tokenIds, maxTokens, temperature: 1, seed: i }] });
    tokens += out.results[0]!.tokenIds.length;
  }
  return tokens / ((performance.now() - t0) / 1000);
}

const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;

async function openEpisodes(w: Worker, max: number): Promise<{ held: number; rss: number; rssLater: number }> {
  const ids: string[] = [];
  const rssLimit = rssMb() + 2048;
  while (ids.length < max && rssMb() < rssLimit) {
    const batch = await Promise.all(Array.from({ length: Math.min(500, max - ids.length) }, (_, i) => claim(w, `bench-open-${i % 16}`)));
    ids.push(...batch.map((c) => c.episodeId));
  }
  const open = w.swarm.status().episodes.open;
  const rss = rssMb();
  await new Promise((r) => setTimeout(r, 3000));
  const rssLater = rssMb();
  for (let i = 0; i < ids.length; i += 500) await Promise.all(ids.slice(i, i + 500).map((id) => abort(w, id)));
  return { held: open, rss, rssLater };
}

export async function benchServer(args: string[]): Promise<Record<string, unknown>> {
  const model = argValue(args, '--model') ?? BUILTIN_MODEL_DIR;
  const threads = Number(argValue(args, '--threads') ?? 2);
  const maxTokens = Number(argValue(args, '--max-tokens') ?? 32);
  const calls = Number(argValue(args, '--calls') ?? 2);
  const maxOpen = Number(argValue(args, '--max-open') ?? 20_000);
  const levels = [1, 8, 32, 64];
  console.log('bench server: (1) latency the server adds per call over the engine\'s own time (p50/p99, one call at a time);');
  console.log(`  (2) generated tokens/s through the API at ${levels.join(', ')} concurrent episodes (≥${calls} calls each, ≥16 in all, max_tokens ${maxTokens}) vs one-at-a-time engine calls;`);
  console.log(`  (3) the most concurrently open episodes held (up to ${maxOpen}) and the process RSS.`);
  const dir = mkdtempSync(join(tmpdir(), 'aj-bench-server-'));
  const w = await startWorker(
    { model, port: 0, runDir: join(dir, 'run'), threads, seed: 0, episodeTimeoutS: 3600, maxEpisodeTimeoutS: 3600, training: { strategy: 'C1', batch: 100_000 } },
    { log: () => undefined },
  );
  try {
    const info = w.engine.info!;
    console.log(`model ${info.model} · ${(info.params / 1e6).toFixed(2)}M params · ${info.device}/${info.dtype} · torch ${info.torch} · ${info.threads} threads`);
    const o = await overhead(w, Number(argValue(args, '--overhead-n') ?? 40), 8);
    console.log(`server overhead per call: p50 ${o.p50.toFixed(2)} ms · p99 ${o.p99.toFixed(2)} ms`);
    const apis = { ...reportApiOverheads(await apiOverheads(w, Number(argValue(args, '--overhead-n') ?? 40)), Number(argValue(args, '--overhead-n') ?? 40)), ...reportTranslationCost(translationCostUs()) };
    const base = await unbatched(w, 16, maxTokens);
    console.log(`one-at-a-time engine calls (render + generate): ${base.toFixed(0)} tokens/s`);
    const tps: Record<number, number> = {};
    for (const n of levels) {
      const before = { ...w.scheduler.stats };
      tps[n] = await throughput(w, n, calls, maxTokens);
      const rounds = w.scheduler.stats.rounds - before.rounds;
      const rows = w.scheduler.stats.rowRounds - before.rowRounds;
      console.log(`${String(n).padStart(2)} concurrent episodes: ${tps[n]!.toFixed(0)} tokens/s (${(tps[n]! / base).toFixed(1)}× one-at-a-time; mean batch ${(rows / Math.max(1, rounds)).toFixed(1)})`);
    }
    const open = await openEpisodes(w, maxOpen);
    console.log(`open episodes held: ${open.held} · RSS ${open.rss.toFixed(0)} MB, ${open.rssLater.toFixed(0)} MB 3 s later`);
    return {
      bench: 'server', overhead_p50_ms: round(o.p50, 2), overhead_p99_ms: round(o.p99, 2), tps_c1: round(tps[1]!), tps_c8: round(tps[8]!), tps_c32: round(tps[32]!),
      tps_c64: round(tps[64]!), tps_unbatched: round(base), max_open_episodes: open.held, rss_mb: round(open.rssLater), ...apis,
    };
  } finally {
    await w.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
