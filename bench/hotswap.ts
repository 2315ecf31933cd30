// Benchmark `hotswap`: the time from handing edited client code to the client runner (`swap(code)`)
// to the first LLM call completed by the new code, over several swaps (median and max), and that the
// server is untouched by them: same weight version, same engine process (pid), no model reload.
// The worker (built-in model) runs in this process with strategy C1 and an unreachable batch, so
// nothing trains; each swap writes a real edit of the calculator-agent openai client (a new marker
// string, so a new code version) under build/, and the client prints `call-done <codeVersion> <epoch
// ms>` after its first chat completion. Options: --swaps N (5), --threads N (2, the engine's),
// --max-tokens N (32), --timeout-s S (60 per swap), --prestart false (the runner without pre-started
// client processes, src/node/runner/prestart.ts: each new one spawned after its predecessor exited).
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startWorker, type Worker } from '../gpu-worker/src/worker';
import { BUILTIN_MODEL_DIR } from '../gpu-worker/src/resources';
import { ClientRunner, formatCompileMessage } from '../src/node/runner/index';
import { StatusSchema, type Status } from '../src/shared/swarm-protocol';
import { workerRoutes } from '../src/shared/worker-routes';
import { argValue, round } from './engine';

const ROOT = resolve(import.meta.dirname, '..');
const EXAMPLES = join(ROOT, 'resources', 'examples');

/** The calculator-agent openai client with a marker string and a log line after its first completed call. */
function clientSource(marker: string): string {
  const from = (p: string): string => JSON.stringify(join(EXAMPLES, p));
  return `// hotswap bench client (generated): calculator-agent's client-openai.ts, marker ${marker}
import OpenAI from 'openai';
import { calculatorExample, loadExampleTasks } from ${from('index')};
import { openaiPolicy } from ${from('openai-policy')};
import { runSwarmLoop } from ${from('swarm-loop')};

const MARKER = ${JSON.stringify(marker)};
const version = process.env['AGENTJET_CODE_VERSION'] ?? 'unknown';
console.log(\`started \${MARKER} \${version} \${Date.now()}\`);
const tasks = loadExampleTasks(calculatorExample, 'train', ${from('calculator-agent/data/train.jsonl')});
let logged = false;

await runSwarmLoop({
  env: calculatorExample.env,
  tasks,
  policy: ({ baseUrl, apiKey, model, signal }) => {
    const policy = openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal });
    return async (messages, tools) => {
      const reply = await policy(messages, tools);
      if (!logged) {
        logged = true;
        console.log(\`call-done \${version} \${Date.now()}\`);
      }
      return reply;
    };
  },
});
`;
}

async function status(w: Worker): Promise<Status> {
  const res = await fetch(`${w.url}${workerRoutes.status.path}`, {
    headers: { authorization: `Bearer ${w.tokens.join}` },
  });
  if (!res.ok) throw new Error(`GET ${workerRoutes.status.path}: HTTP ${res.status}`);
  return StatusSchema.parse(await res.json());
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface SwapRow {
  n: number;
  codeVersion: string;
  compileMs: number;
  spawnMs: number;
  startedMs: number;
  firstCallMs: number;
  weightVersion: number;
  enginePid: number | undefined;
}

export async function benchHotswap(args: string[]): Promise<Record<string, unknown>> {
  const swaps = Number(argValue(args, '--swaps') ?? 5);
  const threads = Number(argValue(args, '--threads') ?? 2);
  const maxTokens = Number(argValue(args, '--max-tokens') ?? 32);
  const timeoutMs = Number(argValue(args, '--timeout-s') ?? 60) * 1000;
  const prestart = argValue(args, '--prestart') !== 'false';
  console.log(
    `bench hotswap: ${swaps} swaps of the calculator-agent openai client (1 process); per swap, the time from runner.swap(code)`,
  );
  console.log(
    '  to the first LLM call completed by the new code (compile + stop old + spawn + first chat completion), and',
  );
  console.log(
    `  the server untouched: weight version, engine pid and engine restarts (model reloads) before vs after (C1, unreachable batch; max_tokens ${maxTokens}).`,
  );
  const dir = join(ROOT, 'build', `hotswap-${Date.now()}-${randomBytes(3).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'client.ts');
  const w = await startWorker(
    {
      model: BUILTIN_MODEL_DIR,
      port: 0,
      runDir: join(dir, 'run'),
      threads,
      seed: 0,
      training: { strategy: 'C1', batch: 100_000, defaultMaxTokens: maxTokens },
    },
    { log: () => undefined },
  );
  const runner = new ClientRunner({
    name: 'hotswap',
    serverUrl: w.url,
    joinToken: w.tokens.join,
    count: 1,
    cwd: dir,
    prestart,
  });
  const calls = new Map<string, number>();
  const starts = new Map<string, number>();
  const recent: string[] = [];
  const waiters = new Set<() => void>();
  runner.on('client:log', (l) => {
    recent.push(`[${l.clientId}] ${l.line}`);
    if (recent.length > 20) recent.shift();
    const m = /^(call-done|started \S+) (\S+) (\d+)$/.exec(l.line);
    if (!m) return;
    const map = m[1] === 'call-done' ? calls : starts;
    if (!map.has(m[2]!)) map.set(m[2]!, Number(m[3]));
    waiters.forEach((f) => f());
  });
  const firstCall = (codeVersion: string): Promise<number> =>
    new Promise((res, rej) => {
      const check = (): void => {
        const t = calls.get(codeVersion);
        if (t === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        res(t);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        rej(
          new Error(
            `no completed LLM call from code version ${codeVersion} within ${timeoutMs / 1000} s; last client lines:\n${recent.join('\n')}`,
          ),
        );
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const deploy = async (
    marker: string,
  ): Promise<{ codeVersion: string; compileMs: number; spawnMs: number; t0: number }> => {
    writeFileSync(entry, clientSource(marker));
    const t0 = Date.now();
    const r = await runner.swap({ entry });
    if (!r.ok) throw new Error(`client did not compile:\n${r.errors.map(formatCompileMessage).join('\n')}`);
    return { codeVersion: r.codeVersion, compileMs: r.compileMs, spawnMs: r.spawnMs, t0 };
  };
  try {
    const info = w.engine.info!;
    console.log(
      `model ${info.model} · ${(info.params / 1e6).toFixed(2)}M params · ${info.device}/${info.dtype} · torch ${info.torch} · ${info.threads} threads`,
    );
    const warm = await deploy('v0');
    await firstCall(warm.codeVersion); // warm-up: first start, esbuild and the engine warm
    const before = await status(w);
    const pidBefore = w.engine.pid;
    console.log(
      `before: weight version ${before.weightVersion} · step ${before.step} · engine pid ${pidBefore ?? '?'} · engine restarts ${before.engine.restarts}`,
    );
    const rows: SwapRow[] = [];
    for (let n = 1; n <= swaps; n++) {
      const d = await deploy(`v${n}-${randomBytes(4).toString('hex')}`);
      const tCall = await firstCall(d.codeVersion);
      const s = await status(w);
      rows.push({
        n,
        codeVersion: d.codeVersion,
        compileMs: d.compileMs,
        spawnMs: d.spawnMs,
        startedMs: (starts.get(d.codeVersion) ?? NaN) - d.t0,
        firstCallMs: tCall - d.t0,
        weightVersion: s.weightVersion,
        enginePid: w.engine.pid,
      });
    }
    const after = await status(w);
    const pidAfter = w.engine.pid;
    console.log(
      'swap  code version     compile ms  spawn ms  process up ms  first call ms  weight version  engine pid',
    );
    for (const r of rows) {
      console.log(
        `${String(r.n).padStart(4)}  ${r.codeVersion.slice(0, 12).padEnd(13)}  ${String(r.compileMs).padStart(10)}  ${String(r.spawnMs).padStart(8)}  ${String(r.startedMs).padStart(13)}  ${String(r.firstCallMs).padStart(13)}  ${String(r.weightVersion).padStart(14)}  ${String(r.enginePid ?? '?').padStart(10)}`,
      );
    }
    const first = rows.map((r) => r.firstCallMs);
    const med = median(first);
    const max = Math.max(...first);
    const versionsDistinct = new Set([warm.codeVersion, ...rows.map((r) => r.codeVersion)]).size === rows.length + 1;
    const weightSame =
      after.weightVersion === before.weightVersion && rows.every((r) => r.weightVersion === before.weightVersion);
    const pidSame = pidBefore !== undefined && pidAfter === pidBefore && rows.every((r) => r.enginePid === pidBefore);
    const restarts = after.engine.restarts - before.engine.restarts;
    console.log(
      `after:  weight version ${after.weightVersion} · step ${after.step} · engine pid ${pidAfter ?? '?'} · engine restarts ${after.engine.restarts} · ${after.counters.calls} calls served`,
    );
    console.log(
      `swap → first call of the new code: median ${med} ms · max ${max} ms (target ≤ 1000 ms: ${max <= 1000 ? 'met' : med <= 1000 ? 'median met, max not' : 'not met'})`,
    );
    console.log(
      `server untouched: weight version ${weightSame ? 'unchanged' : 'CHANGED'} · engine pid ${pidSame ? 'unchanged' : 'CHANGED'} · model reloads ${restarts} · code versions ${versionsDistinct ? 'all distinct' : 'NOT distinct'}`,
    );
    return {
      bench: 'hotswap',
      swap_to_first_call_ms: round(med),
      weight_version_unchanged: weightSame,
      swap_to_first_call_max_ms: round(max),
      compile_ms: round(median(rows.map((r) => r.compileMs))),
      spawn_ms: round(median(rows.map((r) => r.spawnMs))),
      process_up_ms: round(median(rows.map((r) => r.startedMs))),
      engine_pid_unchanged: pidSame,
      engine_reloads: restarts,
      weight_version: after.weightVersion,
      code_versions_distinct: versionsDistinct,
      swaps: rows.length,
      prestart,
    };
  } finally {
    await runner.dispose();
    await w.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
