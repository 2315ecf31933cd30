// Benchmark `async` (issue #21 §5): synchronous colocated training vs a trainer + rollout replica, sync
// and asynchronous with K = 1, 2 and each off-policy correction, side by side on this CPU with the
// built-in model and calculator-agent clients, the same wall time per arm. Per arm: trained episodes
// and updates per minute, held-out success after (200 eval episodes; before: once, the warm start),
// staleness, mismatch KL, sync ms, busy fractions and the share of wall time generation sat waiting for
// an update. Then generated tokens/s of 2 replicas × 1 thread vs 1 process × 2 threads at 64 concurrent
// episodes, and the projection for a GPU box from the measured step times.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startWorker, type Worker } from '../gpu-worker/src/worker';
import { workerConfigFromOptions, WorkerOptionsSchema } from '../src/cli/worker';
import { runEval, type EvalSummary } from '../src/node/eval';
import { startClients } from '../src/node/train-clients';
import { StatusSchema, type StepMetrics } from '../src/shared/swarm-protocol';
import { diffInSe, projectGain, summarizeArm, type ArmSummary } from './async-stats';
import { argValue, round } from './engine';
import { throughput } from './server-load';

const ROOT = resolve(import.meta.dirname, '..');
const EXAMPLE_DIR = join(ROOT, 'resources', 'examples', 'calculator-agent');
const CORRECTIONS = ['none', 'decoupled', 'tis', 'mis'] as const;
const ALL_ARMS = ['a', 'b', ...[1, 2].flatMap((k) => CORRECTIONS.map((c) => `c-k${k}-${c}`))];

export const asyncBenchHelp = `npm run bench -- async [options]
  --minutes M          training wall time of each arm (default 5)
  --arms LIST          a (sync colocated, 2 threads), b (trainer + 1 replica, 1 thread each, sync),
                       c-k<K>-<none|decoupled|tis|mis> (the same, --async, bound K), with -finish:
                       --inflight finish (e.g. c-k1-tis-finish), with -remote: the replica in its own
                       agentjet replica process attached over loopback as from a second host (weight sync
                       over TCPStore + gloo, as across hosts); default the ten without -finish or -remote
  --primary ARM        the async arm of the last line (default c-k1-tis)
  --eval-episodes E    held-out eval episodes before and after (default 200)
  --clients N          calculator client processes (default 4)
  --batch B --group-size G --lr LR   training settings (default 4, 8, 3.5e-4)
  --merge MODE         timeline merging of every arm (default linear: the series in bench/RESULTS.md;
                       tree is the worker's default since 2026-12-07)
  --seed S             the workers' seed (default 1; another seed repeats an arm on a different sample)
  --scaling-calls C    calls per episode of the tokens/s measurement (default 8; 0 skips it)
  --no-warm            skip the held-out eval of the warm start (before training)
  --min-steps N        an arm trains past --minutes until N updates (at most 5 minutes more; default 0)
  --scaling-episodes N concurrent episodes of the tokens/s measurement (default 64)
  --smoke              a quick check of the machinery: 0.1 min (and 2 updates) per arm, arms a and c-k1-tis,
                       2 clients, batch 1 × group 2, 2 eval episodes, no warm-start eval, tokens/s at 4 episodes
  --run-dir DIR        where the workers' files go (default runs/bench-async-<time>)`;

interface Settings {
  minutes: number;
  arms: string[];
  primary: string;
  evalEpisodes: number;
  clients: number;
  minSteps: number;
  training: Record<string, string>;
  runDir: string;
  out: (line: string) => void;
}

function armFlags(arm: string): Record<string, string | boolean> {
  if (arm === 'a') return { threads: '2' };
  const replica = { threads: '1', rolloutReplicas: '1', replicaThreads: '1' };
  if (arm === 'b') return replica;
  const m = /^c-k(\d+)-(none|decoupled|tis|mis)(-finish)?(-remote)?$/.exec(arm);
  if (!m) throw new Error(`unknown arm ${arm}; known: ${ALL_ARMS.join(', ')} (any c arm + -finish, -remote)`);
  return {
    ...(m[4] ? { threads: '1', remoteReplicas: 'true' } : replica),
    async: true,
    stalenessBound: m[1]!,
    correction: m[2]!,
    ...(m[3] ? { inflight: 'finish' } : {}),
  };
}

const isRemote = (arm: string): boolean => arm.endsWith('-remote');

/**
 * `agentjet replica` as its own process, attached over loopback the way a second host attaches (its weight
 * sync goes over the trainer's TCPStore and a gloo pair, as across hosts); resolves once the worker routes to it.
 */
async function remoteReplicaHost(w: Worker, replicaToken: string, dir: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'agentjet.mjs'), 'replica', '--worker', w.url, '--name', 'hostb', '--replica-threads', '1'],
    { env: { ...process.env, AGENTJET_REPLICA_TOKEN: replicaToken }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const log = (d: Buffer): void => appendFileSync(join(dir, 'replica-host.log'), d);
  child.stdout!.on('data', log);
  child.stderr!.on('data', log);
  for (let i = 0; i < 360; i++) {
    const replicas = (await status(w)).serving?.rollout?.replicas ?? [];
    if (replicas.some((r) => typeof r.host === 'string' && r.healthy)) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  child.kill('SIGKILL');
  throw new Error(`the remote replica host did not attach in 3 minutes (see ${join(dir, 'replica-host.log')})`);
}

async function startArm(s: Settings, arm: string, dir: string): Promise<Worker> {
  mkdirSync(dir, { recursive: true });
  const given = { runDir: dir, port: '0', model: 'builtin', ...s.training, ...armFlags(arm) };
  const { config } = workerConfigFromOptions(WorkerOptionsSchema.parse(given));
  return startWorker(config, {
    tokens: armTokens(),
    log: (line) => appendFileSync(join(dir, 'worker.log'), `${line}\n`),
  });
}

const REPLICA_TOKEN = randomBytes(16).toString('hex');
const armTokens = () => ({
  admin: randomBytes(16).toString('hex'),
  join: randomBytes(16).toString('hex'),
  replica: REPLICA_TOKEN,
});

async function status(w: Worker) {
  const res = await fetch(`${w.url}/swarm/v1/status`, { headers: { authorization: `Bearer ${w.tokens.admin}` } });
  return StatusSchema.parse(await res.json());
}

async function runArm(s: Settings, arm: string): Promise<{ summary: ArmSummary; after: EvalSummary }> {
  const dir = join(s.runDir, arm);
  const w = await startArm(s, arm, dir);
  const host = isRemote(arm)
    ? await remoteReplicaHost(w, REPLICA_TOKEN, dir).catch(async (e: unknown) => {
        await w.dispose();
        throw e;
      })
    : null;
  const steps: StepMetrics[] = [];
  w.swarm.onEvent((e) => {
    if (e.type !== 'step') return;
    steps.push(e.metrics);
    appendFileSync(join(dir, 'steps.jsonl'), `${JSON.stringify(e.metrics)}\n`);
  });
  try {
    const trained0 = (await status(w)).counters.trainedEpisodes;
    const clients = await startClients({
      exampleDir: EXAMPLE_DIR,
      kind: 'openai',
      count: s.clients,
      serverUrl: w.url,
      joinToken: w.tokens.join,
      groupSize: w.swarm.training.groupSize,
      log: (id, line) => appendFileSync(join(dir, 'clients.log'), `[${id}] ${line}\n`),
    });
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, s.minutes * 60_000));
    for (let i = 0; i < 600 && steps.length < s.minSteps; i++) await new Promise((r) => setTimeout(r, 500));
    if (steps.length < s.minSteps)
      throw new Error(`[${arm}] ${steps.length} of ${s.minSteps} updates in 5 minutes more`);
    const minutes = (performance.now() - t0) / 60_000;
    const trained = (await status(w)).counters.trainedEpisodes - trained0;
    const counted = [...steps];
    await clients.dispose();
    for (let i = 0; i < 240 && w.swarm.trainer.updating; i++) await new Promise((r) => setTimeout(r, 500));
    const after = await runEval(w.url, w.tokens.join, s.evalEpisodes, 'calc');
    const summary = summarizeArm(arm, counted, trained, minutes);
    s.out(armLine(summary, after));
    return { summary, after };
  } finally {
    await w.dispose();
    host?.kill('SIGTERM');
  }
}

const fmt = (x: number | null, digits = 3): string => (x === null ? '–' : x.toFixed(digits));

function armLine(a: ArmSummary, after: EvalSummary): string {
  return (
    `[${a.arm}] ${a.trainedEpisodes} trained episodes (${a.episodesPerMin.toFixed(1)}/min), ` +
    `${a.updatesPerMin.toFixed(2)} updates/min · success after ${(100 * after.successRate).toFixed(1)}% ` +
    `(${after.episodes}) · staleness mean ${fmt(a.stalenessMean, 2)} max ${a.stalenessMax} · mismatch KL ` +
    `${fmt(a.mismatchKl, 4)} · corrected ${fmt(a.correctedFraction)} · sync ${fmt(a.syncMs, 1)} ms · gen busy ` +
    `${fmt(a.genBusy, 2)} trainer busy ${fmt(a.trainerBusy, 2)} gen idle ${fmt(a.genIdle, 3)} · dropped stale ` +
    `${a.droppedStale} · update ${fmt(a.updateSeconds, 1)} s`
  );
}

/** Generated tokens/s at `episodes` (64) concurrent episodes: 2 replicas × 1 thread vs 1 process × 2 threads. */
async function scaling(s: Settings, calls: number, episodes: number): Promise<{ one: number; two: number }> {
  const noTrain = { ...s.training, strategy: 'C1', batch: '100000' };
  const measure = async (arm: string, flags: Record<string, string>): Promise<number> => {
    const dir = join(s.runDir, `scaling-${arm}`);
    const w = await startArm({ ...s, training: { ...noTrain, ...flags } }, 'a', dir);
    try {
      await throughput(w, 4, 1, 16); // warm-up
      return await throughput(w, episodes, calls, 32);
    } finally {
      await w.dispose();
    }
  };
  const one = await measure('1x2', { threads: '2' });
  const two = await measure('2x1', { threads: '1', rolloutReplicas: '2', replicaThreads: '1' });
  s.out(
    `tokens/s at ${episodes} episodes: 1 process × 2 threads ${one.toFixed(0)}, 2 replicas × 1 thread ${two.toFixed(0)}`,
  );
  return { one, two };
}

function settingsOf(args: string[]): Settings & { scalingCalls: number; scalingEpisodes: number } {
  const smoke = args.includes('--smoke');
  const runDir = resolve(argValue(args, '--run-dir') ?? join('runs', `bench-async-${Date.now()}`));
  mkdirSync(runDir, { recursive: true });
  const arms = (argValue(args, '--arms') ?? (smoke ? 'a,c-k1-tis' : ALL_ARMS.join(','))).split(',');
  return {
    minutes: Number(argValue(args, '--minutes') ?? (smoke ? 0.1 : 5)),
    arms,
    primary: argValue(args, '--primary') ?? (arms.includes('c-k1-tis') ? 'c-k1-tis' : (arms.at(-1) ?? 'a')),
    evalEpisodes: Number(argValue(args, '--eval-episodes') ?? (smoke ? 2 : 200)),
    clients: Number(argValue(args, '--clients') ?? (smoke ? 2 : 4)),
    minSteps: Number(argValue(args, '--min-steps') ?? (smoke ? 2 : 0)),
    training: {
      strategy: 'C2',
      batch: argValue(args, '--batch') ?? (smoke ? '1' : '4'),
      groupSize: argValue(args, '--group-size') ?? (smoke ? '2' : '8'),
      lr: argValue(args, '--lr') ?? '3.5e-4',
      merge: argValue(args, '--merge') ?? 'linear',
      seed: argValue(args, '--seed') ?? '1',
    },
    runDir,
    out: (line) => {
      console.log(line);
      appendFileSync(join(runDir, 'bench.log'), `${line}\n`);
    },
    scalingCalls: Number(argValue(args, '--scaling-calls') ?? (smoke ? 1 : 8)),
    scalingEpisodes: Number(argValue(args, '--scaling-episodes') ?? (smoke ? 4 : 64)),
  };
}

export async function benchAsync(args: string[]): Promise<Record<string, unknown>> {
  if (args.includes('--help')) {
    console.log(asyncBenchHelp);
    return { bench: 'async', help: true };
  }
  const s = settingsOf(args);
  s.out(`bench async · arms ${s.arms.join(', ')} · ${s.minutes} min each · run dir ${s.runDir}`);
  if (!args.includes('--no-warm') && !args.includes('--smoke')) {
    const warmWorker = await startArm(s, 'a', join(s.runDir, 'warm'));
    const before = await runEval(warmWorker.url, warmWorker.tokens.join, s.evalEpisodes, 'calc').finally(() =>
      warmWorker.dispose(),
    );
    s.out(`warm start: held-out success ${(100 * before.successRate).toFixed(1)}% (${before.episodes})`);
  }
  const results = new Map<string, { summary: ArmSummary; after: EvalSummary }>();
  for (const arm of s.arms) results.set(arm, await runArm(s, arm));
  const a = results.get('a');
  const c = results.get(s.primary);
  const scale = s.scalingCalls > 0 ? await scaling(s, s.scalingCalls, s.scalingEpisodes) : null;
  if (a) projection(s, a.summary);
  const r3 = (x: number | null | undefined, digits = 3): number | null =>
    x === null || x === undefined ? null : round(x, digits);
  return {
    bench: 'async',
    episodes_per_min_ratio:
      a && c && a.summary.episodesPerMin > 0 ? round(c.summary.episodesPerMin / a.summary.episodesPerMin, 3) : null,
    gen_idle_fraction_sync: r3(a?.summary.genIdle),
    gen_idle_fraction_async: r3(c?.summary.genIdle),
    success_sync: a ? round(a.after.successRate, 3) : null,
    success_async: c ? round(c.after.successRate, 3) : null,
    success_diff_se:
      a && c
        ? round(
            diffInSe(
              { rate: a.after.successRate, n: a.after.episodes },
              { rate: c.after.successRate, n: c.after.episodes },
            ),
            2,
          )
        : null,
    staleness_max: c?.summary.stalenessMax ?? null,
    mismatch_kl: r3(c?.summary.mismatchKl, 5),
    sync_ms: r3(c?.summary.syncMs, 1),
    replica_scaling_2: scale ? round(scale.two / Math.max(1e-9, scale.one), 3) : null,
  };
}

/** The GPU projection from arm (a)'s step times (update seconds vs the rest of a step). */
function projection(s: Settings, a: ArmSummary): void {
  if (a.updatesPerMin <= 0 || a.updateSeconds === null) return;
  const stepS = 60 / a.updatesPerMin;
  const p = projectGain({ genS: Math.max(0, stepS - a.updateSeconds), trainS: a.updateSeconds, syncS: 0 }, 8, 2);
  s.out(
    `projection, 8 GPUs (2 train / 6 rollout), from (a)'s step (${stepS.toFixed(1)} s, update ${a.updateSeconds.toFixed(1)} s), ` +
      `sync not counted: sync colocated ${p.syncStepS.toFixed(2)} s/step, async ${p.asyncStepS.toFixed(2)} s/step ` +
      `(×${p.gain.toFixed(2)}); vs today's engine (generation on rank 0 only) ${p.todayStepS.toFixed(2)} s/step ` +
      `(×${p.gainVsToday.toFixed(2)})`,
  );
}
