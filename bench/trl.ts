// Benchmark `trl`: does our default training learn more per minute than the field's reference trainer? Side by
// side on this machine, the same warm-started built-in model, the same calculator-agent episode (system prompt,
// `calc` tool rendered byte for byte alike, at most 4 model turns, the verifiable reward), the same GRPO batch
// (8 tasks × 8 episodes per update), learning rate (3.5e-4 decaying linearly to 1e-4 over the budget) and wall time:
//  - agentjet: the worker at its defaults (tree merging, continuous batching, clients playing while it updates)
//    with calculator-agent's openai clients, as the `distill` bench's RL arm runs it;
//  - trl: Hugging Face TRL's GRPOTrainer (bench/python/agentjet_bench/trl_grpo.py) with the task's `calc` as its
//    tool, fully on-policy (one update per generation batch), on the whole CPU.
// Held-out success (the eval split, temperature 1, judged by the verifiable reward) of the warm start, and of each
// arm every --eval-every minutes and at the end: the worker arm is evaluated while it trains (its evaluations share
// the CPU with its training, a cost TRL's arm does not pay: its saved weights are evaluated after it stopped, by a
// worker serving them). Reported: each arm's curve with binomial SEs, its updates, episodes, episodes/min, and the
// difference of the final successes with its SE. Issue 25, study 5 (learning per minute).
import { spawn } from 'node:child_process';
import { appendFileSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { runEval } from '../src/node/eval';
import { startArmWorker } from './arm-worker';
import { runDistillArm } from './distill-arm';
import type { CurvePoint } from './distill-result';
import { argValue, round } from './engine';
import { benchModule } from './python-bench';
import { binomialSe } from './train-stats';

const ROOT = resolve(import.meta.dirname, '..');
const MODEL_DIR = join(ROOT, 'resources', 'models', 'agentjet-tiny');

export const trlBenchHelp = `npm run bench -- trl [options]
  --minutes M          training wall time of each arm (default 10)
  --eval-every E       minutes between held-out evaluations of each arm (default 5)
  --eval-episodes N    held-out episodes per evaluation (default 200, the whole eval split)
  --clients N          the worker arm's client processes (default 6; each plays a group of 8 at once)
  --threads T          the worker arm's engine threads (default 1; its clients and evaluations use the rest)
  --trl-threads T      TRL's torch threads (default 2: the whole CPU)
  --seed S             (default 1)
  --arms A,B           agentjet, trl (default both)
  --smoke              plumbing only: 0.2 min per arm, 1 TRL update of 1 × 2 episodes, evaluations of 2 episodes
  --run-dir DIR        where everything goes (default a temp folder)`;

const TrlResultSchema = z.object({
  updates: z.number(),
  episodes: z.number(),
  seconds: z.number(),
  step_s: z.number(),
  /** The saved weights: when (training minutes), after how many updates, in which folder of the arm's. */
  checkpoints: z
    .array(z.object({ minutes: z.number(), step: z.number(), dir: z.string().regex(/^at-[\w.]+$/) }))
    .min(1),
  train_reward_first: z.number().nullable(),
  train_reward_last: z.number().nullable(),
  trl: z.string(),
});

interface Plan {
  minutes: number;
  evalEvery: number;
  evalEpisodes: number;
  clients: number;
  threads: number;
  trlThreads: number;
  seed: number;
  batch: number;
  groupSize: number;
  maxTrlSteps: number;
  arms: string[];
  runDir: string;
  log: (line: string) => void;
}

interface ArmOutcome {
  curve: CurvePoint[];
  updates: number;
  episodes: number;
  minutes: number;
}

const LR = 3.5e-4;
const LR_END = 1e-4;

function planOf(args: string[]): Plan {
  const smoke = args.includes('--smoke');
  const num = (flag: string, d: number, s: number): number => {
    const v = Number(argValue(args, flag) ?? (smoke ? s : d));
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} must be a positive number\n${trlBenchHelp}`);
    return v;
  };
  const arms = (argValue(args, '--arms') ?? 'agentjet,trl').split(',');
  const bad = arms.filter((a) => a !== 'agentjet' && a !== 'trl');
  if (bad.length > 0) throw new Error(`--arms: unknown ${bad.join(', ')} (arms: agentjet, trl)`);
  const runDir = resolve(argValue(args, '--run-dir') ?? mkdtempSync(join(tmpdir(), 'aj-bench-trl-')));
  mkdirSync(runDir, { recursive: true });
  return {
    minutes: num('--minutes', 10, 0.2),
    evalEvery: num('--eval-every', 5, 0.2),
    evalEpisodes: num('--eval-episodes', 200, 2),
    clients: num('--clients', 6, 1),
    threads: num('--threads', 1, 1),
    trlThreads: num('--trl-threads', 2, 2),
    seed: num('--seed', 1, 1),
    batch: smoke ? 1 : 8,
    groupSize: smoke ? 2 : 8,
    maxTrlSteps: smoke ? 1 : 0,
    arms,
    runDir,
    log: (line) => {
      console.log(line);
      appendFileSync(join(runDir, 'bench.log'), `${line}\n`);
    },
  };
}

async function agentjetArm(p: Plan): Promise<ArmOutcome> {
  const r = await runDistillArm({
    name: 'agentjet',
    minutes: p.minutes,
    evalEveryMinutes: p.evalEvery,
    clients: p.clients,
    batch: p.batch,
    groupSize: p.groupSize,
    minUpdates: p.maxTrlSteps > 0 ? 1 : 0,
    evalEpisodes: p.evalEpisodes,
    lr: LR,
    lrEnd: LR_END,
    threads: p.threads,
    seed: p.seed,
    merge: 'tree', // the worker's default
    runDir: join(p.runDir, 'agentjet'),
    log: p.log,
  });
  return { curve: r.curve, updates: r.updates, episodes: r.trainEpisodes, minutes: r.curve.at(-1)!.minutes };
}

/** Runs TRL's GRPOTrainer as a child process; resolves its result (it exits non-zero: rejects with its log's tail). */
function runTrl(p: Plan, out: string): Promise<z.infer<typeof TrlResultSchema>> {
  const args = [
    ...['--model', MODEL_DIR, '--out', out],
    ...['--minutes', String(p.minutes), '--save-every', String(p.evalEvery), '--seed', String(p.seed)],
    ...['--threads', String(p.trlThreads), '--batch', String(p.batch), '--group', String(p.groupSize)],
    ...['--lr', String(LR), '--lr-end', String(LR_END), '--max-steps', String(p.maxTrlSteps)],
  ];
  const m = benchModule('trl_grpo', args);
  const logFile = join(out, 'trl.log');
  return new Promise((resolveRun, reject) => {
    const child = spawn(m.python, m.args, { cwd: ROOT, env: m.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = createWriteStream(logFile);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    child.on('error', reject);
    child.on('close', (code) => {
      log.end();
      if (code !== 0) {
        const tail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
        reject(new Error(`TRL's arm exited with code ${code}:\n${tail}`));
        return;
      }
      resolveRun(TrlResultSchema.parse(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'))));
    });
  });
}

/** Held-out success of a saved model folder, served by a fresh worker (the evaluation the worker arm gets). */
async function evalFolder(p: Plan, model: string, dir: string): Promise<number> {
  const { worker, tokens } = await startArmWorker({
    runDir: dir,
    logFile: join(dir, 'worker.log'),
    lr: LR,
    threads: 2,
    seed: p.seed,
    extra: { model },
  });
  try {
    return (await runEval(worker.url, tokens.join, p.evalEpisodes, 'calc')).successRate;
  } finally {
    await worker.dispose();
  }
}

async function trlArm(p: Plan, warm: number | null): Promise<ArmOutcome> {
  const out = join(p.runDir, 'trl');
  mkdirSync(out, { recursive: true });
  p.log(`  [trl] GRPOTrainer for ${p.minutes} min (log: ${join(out, 'trl.log')})`);
  const r = await runTrl(p, out);
  p.log(`  [trl] ${r.updates} updates, ${r.episodes} episodes in ${(r.seconds / 60).toFixed(1)} min (TRL ${r.trl})`);
  const start = warm ?? (await evalFolder(p, MODEL_DIR, join(out, 'eval-warm')));
  const curve: CurvePoint[] = [{ minutes: 0, success: start, episodes: p.evalEpisodes }];
  for (const c of r.checkpoints) {
    const success = await evalFolder(p, join(out, c.dir), join(out, `eval-${c.dir}`));
    curve.push({ minutes: c.minutes, success, episodes: p.evalEpisodes });
    p.log(`  [trl] ${c.minutes.toFixed(1)} min · ${c.step} updates · held-out ${(100 * success).toFixed(1)}%`);
  }
  return { curve, updates: r.updates, episodes: r.episodes, minutes: r.seconds / 60 };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

function table(arms: Record<string, ArmOutcome>, n: number): string {
  const rows = Object.entries(arms).map(([name, a]) => {
    const points = a.curve.map(
      (c) => `${c.minutes.toFixed(1)} min ${pct(c.success)} ± ${pct(binomialSe(c.success, n))}`,
    );
    const perMin = a.episodes / Math.max(1e-9, a.minutes);
    return `  ${name.padEnd(9)} ${points.join(' · ')}  | ${a.updates} updates, ${a.episodes} episodes (${perMin.toFixed(0)}/min)`;
  });
  return rows.join('\n');
}

export async function benchTrl(args: string[]): Promise<Record<string, unknown>> {
  if (args.includes('--help')) {
    console.error(trlBenchHelp);
    process.exit(0);
  }
  const p = planOf(args);
  p.log(`bench trl: ${p.minutes} min per arm, evaluations of ${p.evalEpisodes} episodes, run dir ${p.runDir}`);
  const arms: Record<string, ArmOutcome> = {};
  if (p.arms.includes('agentjet')) arms.agentjet = await agentjetArm(p);
  if (p.arms.includes('trl')) arms.trl = await trlArm(p, arms.agentjet?.curve[0]?.success ?? null);
  p.log(table(arms, p.evalEpisodes));
  const n = p.evalEpisodes;
  const warm = (arms.agentjet ?? arms.trl)!.curve[0]!.success;
  const final = (a: ArmOutcome | undefined): number | null => a?.curve.at(-1)?.success ?? null;
  const gain = (a: ArmOutcome | undefined): number | null => (a ? round(100 * (final(a)! - warm), 1) : null);
  const [fa, ft] = [final(arms.agentjet), final(arms.trl)];
  const diff = fa !== null && ft !== null ? round(100 * (fa - ft), 1) : null;
  const diffSe = fa !== null && ft !== null ? round(100 * Math.hypot(binomialSe(fa, n), binomialSe(ft, n)), 1) : null;
  const perMin = (a: ArmOutcome | undefined): number | null => (a ? a.episodes / Math.max(1e-9, a.minutes) : null);
  const [ea, et] = [perMin(arms.agentjet), perMin(arms.trl)];
  if (diff !== null) p.log(`final agentjet − trl: ${diff} pp ± ${diffSe} (independent binomial SEs)`);
  return {
    bench: 'trl',
    minutes: p.minutes,
    success_warm: round(warm, 3),
    success_agentjet: fa,
    success_trl: ft,
    gain_pp_agentjet: gain(arms.agentjet),
    gain_pp_trl: gain(arms.trl),
    diff_pp: diff,
    diff_se_pp: diffSe,
    updates_agentjet: arms.agentjet?.updates ?? null,
    updates_trl: arms.trl?.updates ?? null,
    episodes_agentjet: arms.agentjet?.episodes ?? null,
    episodes_trl: arms.trl?.episodes ?? null,
    episodes_per_min_ratio: ea !== null && et !== null && et > 0 ? round(ea / et, 2) : null,
    eval_episodes: n,
  };
}
