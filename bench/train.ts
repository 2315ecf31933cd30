// Benchmark `train`: does headless training visibly learn, the same for every client framework, and
// survive crashing clients? It measures, on this machine's CPU with the built-in model:
//  1. success_warm / success_final: calculator-agent's held-out eval success (the eval split, sampled
//     at the worker's temperature 1, as `agentjet train` measures it) before training and after
//     --minutes of training (the target: +25 percentage points within 15 minutes), with its binomial
//     standard error;
//  2. framework_curve_mad: the calm run's clients are a mix of the four calculator clients at once
//     (openai, vercel, fetch, python; --clients of each TypeScript one, --python-clients Python), so
//     each framework's train-reward curve — mean reward per bin of weight versions, by the version
//     that sampled the episode — is measured on the same policy; the figure is the largest, over frameworks, mean absolute difference of a
//     framework's curve from the all-framework curve (the mean of the four), printed as a table;
//     framework_std_*: the same curves standardised by task template (with --paired, compared task by
//     task and adjusted for exposure), every figure with its SE bootstrapped over whole task groups and
//     the value noise alone gives it (bench/framework-noise.ts; issue 25's study 4 asks for curves
//     measured to an SE below 0.01: --paired with all six --frameworks and --bins 2, ~30 minutes);
//  3. chaos: the same run again while a random client process is SIGKILLed every --kill-every-s
//     seconds for the whole run (the runner / this bench restart it). Counted on both sides: every
//     end a client saw acknowledged (a pass-through proxy between the clients and the worker
//     records each 2xx answer to POST .../end delivered to the client) must be among the worker's
//     ended episodes (its episode_ended events, else GET /swarm/v1/episodes/<id>): chaos_lost_episodes
//     is the count that is not (plus any client whose logged acknowledged ends outnumber the server's
//     ended episodes of that client); and chaos_success_final is compared with the calm run's within
//     noise (2 standard errors of the difference).
// The training settings (lr 3.5e-4 decaying to 1e-4, group 8, 8 tasks a step, one engine thread, each task
// group packed into a prefix tree) are the bench's own options for the built-in model, found by runs on this
// 2-core CPU (tree packing: docs/studies/seed-robustness.md).
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startWorker, type Worker } from '../gpu-worker/src/worker';
import { startClients, type ClientsHandle } from '../src/node/train-clients';
import { runEval, type EvalSummary } from '../src/node/eval';
import { pairedGain } from './eval-noise-stats';
import { subscribeEvents } from '../src/cli/train-events';
import { CLIENT_KINDS, type ClientKind } from '../src/node/train-clients';
import { workerConfigFromOptions, WorkerOptionsSchema, type WorkerOptions } from '../src/cli/worker';
import { createPrng } from '../src/shared/prng';
import type { SwarmEvent } from '../src/shared/swarm-events';
import { EpisodeSummarySchema, StatusSchema, type StepMetrics } from '../src/shared/swarm-protocol';
import { argValue, round } from './engine';
import { startEndLedger } from './train-proxy';
import {
  binomialSe,
  curvesTable,
  frameworkCurves,
  withinNoise,
  type EndedTrainEpisode,
  type FrameworkCurves,
} from './train-stats';
import { routePath, workerRoutes } from '../src/shared/worker-routes';
import { z } from 'zod';
import { loadTasks } from '../resources/examples/index';
import { frameworkNoise, noiseTable, type Design, type Figure, type FrameworkNoise } from './framework-noise';

const ROOT = resolve(import.meta.dirname, '..');
const EXAMPLE_DIR = join(ROOT, 'resources', 'examples', 'calculator-agent');

/** Worker flags the bench passes through (as for `agentjet worker`), with the bench's defaults. */
const WORKER_FLAGS = [
  'strategy',
  'batch',
  'group-size',
  'algo',
  'lr',
  'clip-low',
  'clip-high',
  'kl-coef',
  'max-staleness',
  'max-tokens',
  'micro-batch-tokens',
  'threads',
  'seed',
  'merge',
  'episode-timeout',
] as const;
export const TRAIN_BENCH_DEFAULTS: Record<string, string> = {
  strategy: 'C2',
  batch: '8',
  'group-size': '8',
  lr: '3.5e-4',
  threads: '1',
  seed: '1',
  merge: 'tree',
};
/** The frameworks of a run without --frameworks (the figures in bench/RESULTS.md); langchain and agents join on request. */
const DEFAULT_FRAMEWORKS: readonly ClientKind[] = ['openai', 'vercel', 'fetch', 'python'];
/** With the default --lr, the learning rate decays linearly to this over the run (see --lr-end). */
const DEFAULT_LR_END = 1e-4;

export const trainBenchHelp = `npm run bench -- train [options]
  --minutes M            training minutes of each run (default 15)
  (defaults tuned on the 2-core CPU: --lr 3.5e-4 --lr-end 1e-4 --group-size 8 --batch 8 --threads 1
  --merge tree; --merge linear for the runs before 2026-12-06 in bench/RESULTS.md)
  --clients N            client processes per TypeScript framework (default 2)
  --python-clients N     Python client processes (default --clients: like the TypeScript ones, each plays
                         a task group's episodes all at once)
  --frameworks LIST      comma-separated client kinds: openai, vercel, fetch, python, langchain, agents
                         (default openai,vercel,fetch,python)
  --eval-episodes E      held-out eval episodes per evaluation (default 200, the whole eval split)
  --bins B               weight-version bins of the framework curves (default 4)
  --lr-end LR           decay the learning rate linearly from --lr to LR over the run's minutes (set
                         every 10 s through PATCH /swarm/v1/config; default 1e-4 with the default --lr,
                         else a constant --lr)
  --eval-every-min M     also evaluate every M minutes during training (default 0: only before and after;
                         these evals share the CPU with training, so they slow it)
  --kill-every-s S       chaos: SIGKILL a random client every S seconds (default 10)
  --no-chaos             skip the chaos run
  --reanalyse DIR        run nothing: print the framework figures of a finished run again from
                         DIR/calm/episodes.jsonl (with --paired or --lockstep, --bins, --frameworks as it ran)
  --paired               client i of every framework plays the same task order (AGENTJET_PAIRED_TASKS), so
                         the frameworks' curves are compared task by task (tasks' difficulty cancels)
  --lockstep             --paired, and client i of every framework starts its n-th task group only when all
                         of them have finished group n − 1 (AGENTJET_PAIRED_SYNC; the calm run only: a
                         killed client would hold its peers), so they play each task at the same weights
  --run-dir DIR          where both runs' worker files and logs go (default runs/bench-train-<time>)
  worker settings, as for \`agentjet worker\`: ${WORKER_FLAGS.map((f) => `--${f}`).join(' ')}
  (bench defaults: ${Object.entries(TRAIN_BENCH_DEFAULTS)
    .map(([k, v]) => `--${k} ${v}`)
    .join(' ')})`;

/** The clients' environment of a paired run: the task order, and in a calm lock-step run its sync folder. */
const pairedEnv = (s: RunSettings): Record<string, string> => ({
  AGENTJET_PAIRED_TASKS: '1',
  ...(s.design === 'lockstep' && s.mode === 'calm'
    ? { AGENTJET_PAIRED_SYNC: join(s.runDir, 'paired-sync'), AGENTJET_PAIRED_PEERS: String(s.frameworks.length) }
    : {}),
});

/** How the frameworks' clients are matched, read once from the arguments (--lockstep implies --paired). */
const designOf = (args: readonly string[]): Design =>
  args.includes('--lockstep') ? 'lockstep' : args.includes('--paired') ? 'paired' : 'templates';

const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function workerOptions(args: string[], runDir: string): WorkerOptions {
  const given: Record<string, string> = { runDir, port: '0', model: 'builtin' };
  for (const f of WORKER_FLAGS) {
    const v = argValue(args, `--${f}`) ?? TRAIN_BENCH_DEFAULTS[f];
    if (v !== undefined) given[camel(f)] = v;
  }
  return WorkerOptionsSchema.parse(given);
}

interface RunSettings {
  mode: 'calm' | 'chaos';
  minutes: number;
  /** Client processes per framework. */
  counts: Record<string, number>;
  frameworks: ClientKind[];
  evalEpisodes: number;
  killEveryS: number;
  evalEveryMin: number;
  lrEnd: number | null;
  /**
   * paired: every framework's clients play the same task order (AGENTJET_PAIRED_TASKS); lockstep: and in
   * lock-step (AGENTJET_PAIRED_SYNC), in the calm run; templates: each client its own order.
   */
  design: Design;
  runDir: string;
  args: string[];
  out: (line: string) => void;
  /** Evaluate the warm start first (the calm run). */
  warmEval: boolean;
}

interface RunResult {
  mode: string;
  warm: EvalSummary | null;
  final: EvalSummary;
  trainSeconds: number;
  steps: StepMetrics[];
  episodes: EndedTrainEpisode[];
  kills: number;
  acked: number;
  lost: string[];
  unackedEnds: number;
  logAckedByClient: Record<string, number>;
  serverEndedByClient: Record<string, number>;
  logCountShortfall: number;
  config: Record<string, unknown>;
}

const frameworkOf = (clientId: string): string | null => /^train-([a-z]+)-\d+$/.exec(clientId)?.[1] ?? null;
const pct = (p: number): string => `${(100 * p).toFixed(1)}%`;
const successes = (e: EvalSummary): boolean[] => e.outcomes.map((o) => o.success);

async function adminGet(w: Worker, path: string): Promise<unknown> {
  const res = await fetch(`${w.url}${path}`, { headers: { authorization: `Bearer ${w.tokens.admin}` } });
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
  return res.json();
}

function evalLine(label: string, e: EvalSummary): string {
  return `${label}: held-out success ${pct(e.successRate)} ± ${pct(binomialSe(e.successRate, e.episodes))} (1 s.e.) · ${e.episodes} episodes (${e.failed} failed) · weight versions ${e.versions.join(',')} · ${e.seconds.toFixed(0)} s`;
}

async function runOnce(s: RunSettings): Promise<RunResult> {
  mkdirSync(s.runDir, { recursive: true });
  const files = {
    workerLog: join(s.runDir, 'worker.log'),
    clientsLog: join(s.runDir, 'clients.log'),
    steps: join(s.runDir, 'steps.jsonl'),
    /** Every ended train episode of a client framework, as the framework figures read them. */
    episodes: join(s.runDir, 'episodes.jsonl'),
    kills: join(s.runDir, 'kills.log'),
  };
  const wo = workerOptions(s.args, s.runDir);
  const tokens = { admin: randomBytes(16).toString('hex'), join: randomBytes(16).toString('hex') };
  const worker = await startWorker(workerConfigFromOptions(wo).config, {
    tokens,
    log: (line) => appendFileSync(files.workerLog, `${line}\n`),
  });
  const t = worker.swarm.training;
  const config = {
    strategy: t.strategy,
    batch: t.batch,
    groupSize: t.groupSize,
    lr: t.lr,
    klCoef: t.klCoef,
    maxStaleness: t.maxStaleness,
    algo: t.algo,
    temperature: t.temperature,
  };
  s.out(
    `[${s.mode}] worker ${worker.url} · clients ${s.frameworks.map((k) => `${k}×${s.counts[k]}`).join(', ')} · ${s.minutes} min · ${JSON.stringify(config)} · run dir ${s.runDir}`,
  );
  const steps: StepMetrics[] = [];
  const episodes: EndedTrainEpisode[] = [];
  const startedVersion = new Map<string, number>();
  const serverEnded = new Set<string>();
  const serverEndedByClient: Record<string, number> = {};
  let lastPrinted = 0;
  const onEvent = (e: SwarmEvent): void => {
    if (e.type === 'episode_started') startedVersion.set(e.episodeId, e.weightVersion);
    else if (e.type === 'episode_ended') {
      serverEnded.add(e.episodeId);
      serverEndedByClient[e.clientId] = (serverEndedByClient[e.clientId] ?? 0) + 1;
      const framework = frameworkOf(e.clientId);
      if (e.kind === 'train' && framework) {
        const ended: EndedTrainEpisode = {
          episodeId: e.episodeId,
          framework,
          clientId: e.clientId,
          taskId: e.taskId,
          reward: e.reward,
          success: e.success ?? false,
          version: startedVersion.get(e.episodeId) ?? steps.at(-1)?.weightVersion ?? 0,
        };
        episodes.push(ended);
        appendFileSync(files.episodes, `${JSON.stringify(ended)}\n`);
      }
      startedVersion.delete(e.episodeId);
    } else if (e.type === 'step') {
      steps.push(e.metrics);
      appendFileSync(files.steps, `${JSON.stringify({ time: Date.now(), ...e.metrics })}\n`);
    } else if (e.type === 'log' && (e.level === 'error' || e.level === 'warn'))
      appendFileSync(files.workerLog, `[${e.level}] ${e.source}: ${e.message}\n`);
  };
  const events = await subscribeEvents(worker.url, tokens.admin, {
    event: onEvent,
    error: (m) => appendFileSync(files.workerLog, `${m}\n`),
  });
  const ledger = await startEndLedger(worker.url);
  const handles: ClientsHandle[] = [];
  const logAckedByClient: Record<string, number> = {};
  let kills = 0;
  let killTimer: NodeJS.Timeout | null = null;
  let progressTimer: NodeJS.Timeout | null = null;
  let evalTimer: NodeJS.Timeout | null = null;
  let lrTimer: NodeJS.Timeout | null = null;
  let lrNow = t.lr;
  let midEval: Promise<void> = Promise.resolve();
  try {
    let warm: EvalSummary | null = null;
    if (s.warmEval) {
      warm = await runEval(worker.url, tokens.join, s.evalEpisodes, 'calc');
      s.out(evalLine(`[${s.mode}] warm start (v0)`, warm));
    }
    const log = (id: string, line: string): void => {
      appendFileSync(files.clientsLog, `[${id}] ${line}\n`);
      // The example clients print `<task>: reward R ...` after each acknowledged end.
      if (/^\S+: reward -?[\d.]+ /.test(line)) logAckedByClient[id] = (logAckedByClient[id] ?? 0) + 1;
    };
    handles.push(
      ...(await Promise.all(
        s.frameworks.map((kind) =>
          startClients({
            exampleDir: EXAMPLE_DIR,
            kind,
            count: s.counts[kind]!,
            serverUrl: ledger.url,
            joinToken: tokens.join,
            groupSize: t.groupSize,
            ...(s.design !== 'templates' ? { env: pairedEnv(s) } : {}),
            log,
          }),
        ),
      )),
    );
    const t0 = performance.now();
    if (s.mode === 'chaos') {
      const rng = createPrng(Number(wo.seed ?? 1) + 77);
      killTimer = setInterval(() => {
        const running = handles.flatMap((h) => h.processes());
        if (running.length === 0) return;
        const victim = rng.pick(running);
        try {
          process.kill(victim.pid, 'SIGKILL');
          kills++;
          appendFileSync(files.kills, `${new Date().toISOString()} SIGKILL ${victim.clientId} pid ${victim.pid}\n`);
        } catch (err) {
          appendFileSync(
            files.kills,
            `${new Date().toISOString()} could not kill ${victim.clientId}: ${err instanceof Error ? err.message : String(err)}\n`,
          );
        }
      }, s.killEveryS * 1000);
    }
    if (s.lrEnd !== null) {
      const lr0 = t.lr;
      const lrEnd = s.lrEnd;
      lrTimer = setInterval(() => {
        const frac = Math.min(1, (performance.now() - t0) / (s.minutes * 60_000));
        lrNow = lr0 + (lrEnd - lr0) * frac;
        void fetch(`${worker.url}${workerRoutes.updateConfig.path}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ lr: lrNow }),
        }).then(
          (r) => (r.ok ? undefined : appendFileSync(files.workerLog, `bench: PATCH lr failed: HTTP ${r.status}\n`)),
          (err: unknown) => appendFileSync(files.workerLog, `bench: PATCH lr failed: ${String(err)}\n`),
        );
      }, 10_000);
    }
    if (s.evalEveryMin > 0) {
      evalTimer = setInterval(() => {
        midEval = midEval.then(async () => {
          const e = await runEval(worker.url, tokens.join, s.evalEpisodes, 'calc').catch(() => null);
          if (e)
            s.out(evalLine(`[${s.mode}] during training, ${((performance.now() - t0) / 60_000).toFixed(1)} min`, e));
        });
      }, s.evalEveryMin * 60_000);
    }
    progressTimer = setInterval(() => {
      const recent = episodes.slice(lastPrinted);
      lastPrinted = episodes.length;
      const ok = recent.filter((e) => e.success).length;
      const last = steps.at(-1);
      s.out(
        `[${s.mode}] ${((performance.now() - t0) / 60_000).toFixed(1)} min · step ${last?.step ?? 0} (v${last?.weightVersion ?? 0}) · ${episodes.length} train episodes · last minute's train success ${recent.length > 0 ? pct(ok / recent.length) : '–'} (${recent.length}) · lr ${lrNow.toExponential(2)}${s.mode === 'chaos' ? ` · ${kills} kills` : ''}`,
      );
    }, 60_000);
    await new Promise((r) => setTimeout(r, s.minutes * 60_000));
    const trainSeconds = (performance.now() - t0) / 1000;
    if (killTimer) clearInterval(killTimer);
    if (evalTimer) clearInterval(evalTimer);
    if (lrTimer) clearInterval(lrTimer);
    clearInterval(progressTimer);
    await Promise.all(handles.splice(0).map((h) => h.dispose()));
    await midEval;
    // Let a running update finish before the final eval, so it measures one weight version.
    for (let i = 0; i < 120; i++) {
      const st = StatusSchema.parse(await adminGet(worker, workerRoutes.status.path));
      if (st.state !== 'updating') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 1000));
    // Both sides of the ledger: every end acknowledged to a client must be an ended episode on the server.
    const lost: string[] = [];
    for (const id of ledger.acked) {
      if (serverEnded.has(id)) continue;
      const ep = EpisodeSummarySchema.safeParse(
        await adminGet(worker, routePath(workerRoutes.episode, { id })).catch(() => null),
      );
      if (!ep.success || ep.data.status !== 'ended') lost.push(id);
    }
    let logCountShortfall = 0;
    for (const [id, n] of Object.entries(logAckedByClient))
      logCountShortfall += Math.max(0, n - (serverEndedByClient[id] ?? 0));
    const final = await runEval(worker.url, tokens.join, s.evalEpisodes, 'calc');
    s.out(
      evalLine(
        `[${s.mode}] after ${(trainSeconds / 60).toFixed(1)} min, ${updates(steps)} updates (${steps.length} batches)`,
        final,
      ),
    );
    return {
      mode: s.mode,
      warm,
      final,
      trainSeconds,
      steps,
      episodes,
      kills,
      acked: ledger.acked.size,
      lost,
      unackedEnds: ledger.unacked.length,
      logAckedByClient,
      serverEndedByClient,
      logCountShortfall,
      config,
    };
  } finally {
    if (killTimer) clearInterval(killTimer);
    if (progressTimer) clearInterval(progressTimer);
    if (evalTimer) clearInterval(evalTimer);
    if (lrTimer) clearInterval(lrTimer);
    await Promise.all(handles.map((h) => h.dispose()));
    await ledger.close();
    events.close();
    await worker.dispose();
  }
}

/** Weight updates made: a batch whose groups all had zero advantage is consumed without one. */
const updates = (steps: StepMetrics[]): number => steps.at(-1)?.weightVersion ?? 0;

function stamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

function trainSuccessByQuarter(r: RunResult): string {
  const n = r.episodes.length;
  const q = [0, 1, 2, 3].map((i) => r.episodes.slice(Math.floor((i * n) / 4), Math.floor(((i + 1) * n) / 4)));
  return q.map((xs) => pct(xs.filter((e) => e.success).length / Math.max(1, xs.length))).join(' → ');
}

/** The framework curves of a run's ended train episodes, printed, and their JSON figures. */
function frameworkFigures(
  episodes: readonly EndedTrainEpisode[],
  frameworks: string[],
  bins: number,
  design: Design,
  out: (line: string) => void,
): { curves: FrameworkCurves; noise: FrameworkNoise; json: Record<string, unknown> } {
  const curves = frameworkCurves([...episodes], frameworks, bins);
  const templateOf = new Map(loadTasks('calculator-agent', 'train').map((t) => [t.id, t.template]));
  // Paired: every framework's clients played the same tasks, so each task is its own stratum.
  const noise = frameworkNoise(
    episodes.map((e) => ({
      ...e,
      stratum: design !== 'templates' ? e.taskId : (templateOf.get(e.taskId) ?? e.taskId),
      group: `${e.clientId}:${e.taskId}`,
    })),
    frameworks,
    curves.edges,
    { design },
  );
  const versions = (curves.edges.at(-1) ?? 1) - 1;
  out('');
  out(
    `calm run: mean train reward per framework and weight-version bin (episodes in brackets; ${curves.edges.length - 1} equal bins of versions 0–${versions};`,
  );
  out('the all column is the mean of the framework means; MAD vs all = mean over bins of |framework − all|):');
  out(curvesTable(curves));
  out(
    `framework_curve_mad (largest MAD vs all) ${curves.maxMadVsAll.toFixed(3)} · largest pairwise MAD ${curves.maxPairwiseMad.toFixed(3)} · target < 0.05`,
  );
  out('');
  out(
    design === 'lockstep'
      ? `the same curves over the tasks every framework played in the bin (paired task order, in lock-step: each task at the same weights), compared within task, each ± its SE (bootstrap over tasks; episodes in brackets):`
      : design === 'paired'
        ? `the same curves over the tasks every framework played in the bin (paired task order), adjusted for each group's version offset within its task (exposure slope per bin: ${noise.exposureSlope.map((x) => (x === null ? '–' : x.toFixed(4))).join(', ')} reward per version), each ± its SE (bootstrap over tasks; episodes in brackets):`
        : `the same curves standardised by task template (per-template means weighted by all frameworks' template mix in the bin), each ± its SE (bootstrap over task groups; episodes in brackets):`,
  );
  out(noiseTable(noise));
  const fig = (f: Figure): string =>
    `${f.value.toFixed(4)} ± ${f.se.toFixed(4)} (noise alone: ${f.noise.toFixed(4)}, reached by noise in ${(100 * f.p).toFixed(1)} % of draws)`;
  out(
    `standardised: largest MAD vs all ${fig(noise.madVsAll)} · largest pairwise MAD ${fig(noise.pairwiseMad)} · largest height difference ${noise.height.a} − ${noise.height.b} ${noise.height.diff.toFixed(4)} ± ${noise.height.se.toFixed(4)} · largest SE of a per-bin difference ${noise.maxCellDiffSe.toFixed(4)} (claim: curves < 0.025 apart, measured to SE < 0.01)`,
  );
  return {
    curves,
    noise,
    json: {
      framework_std_mad: round(noise.madVsAll.value, 4),
      framework_std_mad_se: round(noise.madVsAll.se, 4),
      framework_std_mad_noise: round(noise.madVsAll.noise, 4),
      framework_std_pairwise: round(noise.pairwiseMad.value, 4),
      framework_std_pairwise_se: round(noise.pairwiseMad.se, 4),
      framework_std_pairwise_noise: round(noise.pairwiseMad.noise, 4),
      framework_std_pairwise_p: round(noise.pairwiseMad.p, 3),
      framework_height_diff: round(noise.height.diff, 4),
      framework_height_diff_se: round(noise.height.se, 4),
      framework_bin_diff_se_max: round(noise.maxCellDiffSe, 4),
      paired_tasks: design !== 'templates',
      ...(design === 'lockstep' ? { lockstep: true } : {}),
    },
  };
}

const EndedTrainEpisodeSchema = z.object({
  episodeId: z.string(),
  framework: z.string(),
  clientId: z.string(),
  taskId: z.string(),
  reward: z.number(),
  success: z.boolean(),
  version: z.number().int().nonnegative(),
});

/** `--reanalyse DIR`: the framework figures of a finished run again, from its calm/episodes.jsonl. */
function reanalyse(dir: string, args: string[], out: (line: string) => void): Record<string, unknown> {
  const file = join(dir, 'calm', 'episodes.jsonl');
  const episodes = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      const parsed = EndedTrainEpisodeSchema.safeParse(JSON.parse(l));
      if (!parsed.success) throw new Error(`${file}:${i + 1}: not an ended episode (${parsed.error.message})`);
      return parsed.data;
    });
  const seen = [...new Set(episodes.map((e) => e.framework))];
  const frameworks = (argValue(args, '--frameworks')?.split(',') ?? seen).map((f) => f.trim());
  const bins = Number(argValue(args, '--bins') ?? 4);
  if (!(bins > 0)) throw new Error(`bad options\n${trainBenchHelp}`);
  out(`${episodes.length} ended train episodes of ${file}`);
  const { curves, json } = frameworkFigures(episodes, frameworks, bins, designOf(args), out);
  return {
    bench: 'train',
    reanalysed: dir,
    framework_curve_mad: round(curves.maxMadVsAll, 4),
    framework_curve_mad_pairwise: round(curves.maxPairwiseMad, 4),
    ...json,
    train_episodes: episodes.length,
    frameworks,
    bins,
  };
}

export async function benchTrain(args: string[]): Promise<Record<string, unknown>> {
  const again = argValue(args, '--reanalyse');
  if (again !== undefined) return reanalyse(resolve(again), args, (line) => console.log(line));
  if (args.includes('--help')) {
    console.log(trainBenchHelp);
    process.exit(0);
  }
  const minutes = Number(argValue(args, '--minutes') ?? 15);
  const clientsPer = Number(argValue(args, '--clients') ?? 2);
  // Every client, Python or TypeScript, plays a task group's episodes at once: the same count of each.
  const pythonClients = Number(argValue(args, '--python-clients') ?? clientsPer);
  const frameworks = (argValue(args, '--frameworks') ?? DEFAULT_FRAMEWORKS.join(',')).split(',').map((k) => {
    const kind = CLIENT_KINDS.find((c) => c === k.trim());
    if (!kind) throw new Error(`--frameworks: unknown client kind "${k}" (${CLIENT_KINDS.join(', ')})`);
    return kind;
  });
  const evalEpisodes = Number(argValue(args, '--eval-episodes') ?? 200);
  const bins = Number(argValue(args, '--bins') ?? 4);
  const killEveryS = Number(argValue(args, '--kill-every-s') ?? 10);
  const evalEveryMin = Number(argValue(args, '--eval-every-min') ?? 0);
  const lrEndArg = argValue(args, '--lr-end');
  const lrEnd =
    lrEndArg === undefined ? (argValue(args, '--lr') === undefined ? DEFAULT_LR_END : null) : Number(lrEndArg);
  if (lrEnd !== null && !(lrEnd > 0)) throw new Error('--lr-end: a positive learning rate');
  const chaos = !args.includes('--no-chaos');
  const design = designOf(args);
  const runDir = resolve(argValue(args, '--run-dir') ?? join('runs', `bench-train-${stamp()}`));
  const counts: Record<string, number> = Object.fromEntries(
    frameworks.map((k) => [k, k === 'python' ? pythonClients : clientsPer]),
  );
  if (
    !(minutes > 0) ||
    !(clientsPer > 0) ||
    !(pythonClients > 0) ||
    !(evalEpisodes > 0) ||
    !(bins > 0) ||
    !(killEveryS > 0)
  )
    throw new Error(`bad options\n${trainBenchHelp}`);
  if (design === 'lockstep' && new Set(Object.values(counts)).size > 1)
    throw new Error('--lockstep: every framework needs the same number of clients (--python-clients)');
  const out = (line: string): void => console.log(line);
  const wall0 = performance.now();
  const common = {
    minutes,
    counts,
    frameworks,
    evalEpisodes,
    killEveryS,
    evalEveryMin,
    lrEnd,
    design,
    args,
    out,
  };
  const calm = await runOnce({ ...common, mode: 'calm', runDir: join(runDir, 'calm'), warmEval: true });
  const warm = calm.warm!;
  const figures = frameworkFigures(calm.episodes, frameworks, bins, design, out);
  const { curves } = figures;
  out(`calm train success by quarter of its episodes: ${trainSuccessByQuarter(calm)}`);
  const gainPp = 100 * (calm.final.successRate - warm.successRate);
  const gainSe =
    100 *
    Math.sqrt(
      binomialSe(calm.final.successRate, calm.final.episodes) ** 2 + binomialSe(warm.successRate, warm.episodes) ** 2,
    );
  // Before and after play the same tasks: the paired SE is the gain's noise from run to run (docs/studies/seed-robustness.md).
  const paired = pairedGain(successes(warm), successes(calm.final));
  out(
    `held-out success: warm ${pct(warm.successRate)} → ${pct(calm.final.successRate)} after ${(calm.trainSeconds / 60).toFixed(1)} min: ${gainPp >= 0 ? '+' : ''}${gainPp.toFixed(1)} pp ± ${gainSe.toFixed(1)} (1 s.e., tasks drawn afresh) ± ${(100 * paired.pairedSe).toFixed(1)} (paired, same tasks) · target ≥ +25 pp`,
  );
  out(`calm ledger: ${calm.acked} ends acknowledged to clients, ${calm.lost.length} missing on the server`);
  let chaosRun: RunResult | null = null;
  if (chaos) {
    out('');
    chaosRun = await runOnce({ ...common, mode: 'chaos', runDir: join(runDir, 'chaos'), warmEval: false });
    const agree = withinNoise(
      { p: calm.final.successRate, n: calm.final.episodes },
      { p: chaosRun.final.successRate, n: chaosRun.final.episodes },
    );
    out(
      `chaos run: ${chaosRun.kills} clients SIGKILLed (one every ${killEveryS} s) · ${updates(chaosRun.steps)} updates · ${chaosRun.episodes.length} train episodes ended`,
    );
    out(
      `chaos ledger: ${chaosRun.acked} ends acknowledged to clients (proxy), ${chaosRun.lost.length} of them missing among the server's ended episodes; ${chaosRun.unackedEnds} end requests not acknowledged (client killed first, or refused)`,
    );
    out(
      `chaos client logs: ${Object.values(chaosRun.logAckedByClient).reduce((a, b) => a + b, 0)} acknowledged ends logged; clients whose logged count exceeds the server's ended count: ${chaosRun.logCountShortfall} episodes`,
    );
    out(
      `chaos final held-out success ${pct(chaosRun.final.successRate)} vs calm ${pct(calm.final.successRate)}: ${agree ? 'within' : 'NOT within'} noise (2 s.e. of the difference)`,
    );
  }
  const wallMin = (performance.now() - wall0) / 60_000;
  out(`wall time ${wallMin.toFixed(1)} min · run dir ${runDir}`);
  return {
    bench: 'train',
    success_warm: round(warm.successRate, 3),
    success_final: round(calm.final.successRate, 3),
    minutes: round(calm.trainSeconds / 60, 2),
    framework_curve_mad: round(curves.maxMadVsAll, 4),
    chaos_lost_episodes: chaosRun ? chaosRun.lost.length + chaosRun.logCountShortfall : null,
    chaos_success_final: chaosRun ? round(chaosRun.final.successRate, 3) : null,
    gain_pp: round(gainPp, 1),
    gain_paired_se_pp: round(100 * paired.pairedSe, 1),
    chaos_gain_pp: chaosRun ? round(100 * (chaosRun.final.successRate - warm.successRate), 1) : null,
    eval_episodes: evalEpisodes,
    success_se: round(binomialSe(calm.final.successRate, calm.final.episodes), 3),
    framework_curve_mad_pairwise: round(curves.maxPairwiseMad, 4),
    ...figures.json,
    steps: updates(calm.steps),
    batches: calm.steps.length,
    train_episodes: calm.episodes.length,
    chaos_kills: chaosRun?.kills ?? null,
    chaos_acked_ends: chaosRun?.acked ?? null,
    chaos_steps: chaosRun ? updates(chaosRun.steps) : null,
    chaos_minutes: chaosRun ? round(chaosRun.trainSeconds / 60, 2) : null,
    clients: Object.values(counts).reduce((a, b) => a + b, 0),
    ...calm.config,
    lr_end: lrEnd ?? calm.config['lr'],
    wall_minutes: round(wallMin, 1),
  };
}
