// Benchmark `distill`: on-policy distillation from a teacher worker vs RL on the verifiable reward, from
// the same warm start with the same budget, on the calculator task with the built-in model:
//  1. RL: the warm start trains --minutes on calculator-agent's verifiable reward (GRPO, the training
//     benchmark's settings), held-out success every --eval-every minutes; its final weights are saved
//     (the run's checkpoint) — this run is both the RL arm and the teacher;
//  2. the teacher: a second worker resumed from that run's folder, serving those weights, never trained;
//  3. distillation: a fresh warm start trains --minutes with --teacher-url on that worker (per-token
//     advantage −(log π_student − log π_teacher), --distill-weight 1: the clients' reward is ignored),
//     the same clients and evaluations; with --distill-top-k K the teacher also names its K most likely
//     tokens at every trained position and the student trains on the KL to that distribution instead;
//     with --distill-keep F only the fraction F of a step's samples trains, where the teacher disagrees most.
// Figures: the teacher's gain, each arm's gain, and the minutes each needs to reach the warm start +
// 80 % of the teacher's gain (null: not within the budget; also interpolated between evaluations); the
// curves in one chart (<run-dir>/<distillation arm's folder name>.svg, e.g. distill.svg).
// Each arm writes its result to <run-dir>/<arm>/result.json; with --reuse-rl and the same --run-dir, a
// finished RL arm of the same settings is read back (its folder is still the teacher) and only the
// distillation arm runs, so distillation settings (--distill-batch, --distill-lr, --distill-top-k) can be compared
// against one RL run; --reuse reads a finished distillation arm of the same settings back too. With
// --seeds S1,S2,… each seed runs in <run-dir>/seed-<S>/ and the figures are computed on the seeds' mean
// curves (each point's standard error over the seeds), with each seed's own figures beside them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker } from '../gpu-worker/src/worker';
import { refuseOccupiedArm, runDistillArm, type DistillArmOptions } from './distill-arm';
import { distillArmDir, finishedArm, type CurvePoint, type DistillArmResult } from './distill-result';
import { crossingMinutes, curvesSvg, curvesTable, gainPp, mean, meanCurve, minutesTo } from './distill-stats';
import { MergeModeSchema, type MergeMode } from '../src/shared/timeline/types';
import { argValue, round } from './engine';
import { MAX_TOP_K } from '../src/shared/engine-protocol';

export const distillBenchHelp = `npm run bench -- distill [options]
  --minutes M          training minutes of each arm (default 15, the training benchmark's budget)
  --eval-every M       held-out evaluation every M minutes while training (default 2.5)
  --eval-episodes E    held-out episodes per evaluation (default 100 of the eval split)
  --clients N          client processes per arm (default 6; each plays a group of 8 at once)
  --lr LR --lr-end LR  learning rate, decayed linearly (default 3.5e-4 → 1e-4)
  --distill-weight W   the teacher's weight in the advantage (default 1: distillation alone)
  --threads T          engine threads per worker (default 1)     --seed S (default 1)
  --merge MODE         timeline merging of both arms: linear (default), tree (a task group's episodes packed
                       into one prefix tree: its shared prompt scored by the teacher and trained once), none
  --distill-batch B    task groups per distillation update (default 8, RL's): every distilled episode carries
                       a signal (none is dropped), so an update costs more than RL's; a smaller batch updates
                       more often
  --distill-group-size G  episodes per task in the distillation arm (default 8, RL's): distillation needs no
                       group baseline, so fewer episodes of more tasks can fill an update; the arm keeps RL's
                       episodes in flight (--clients × 8 / G clients) and per update (--distill-batch × 8 / G
                       tasks)
  --distill-lr LR      the distillation arm's learning rate (default --lr; decayed to --lr-end × LR / --lr)
  --distill-top-k K    distil from the teacher's K most likely tokens at every trained position (KL to its
                       top-K distribution) instead of its logprob of the sampled token (default 0: sampled)
  --distill-keep F     the fraction of a distillation step's samples that trains: those where the teacher
                       disagrees most per token (default 1: every sample)
  --reuse-rl           with --run-dir: read a finished RL arm of the same settings from it instead of running
                       it again (it stays the teacher); only the distillation arm runs, in its own folder
                       (distill-b<B>-lr<LR>-k<K>-g<G>-w<W>-keep<F>/, naming the settings that differ from the
                       defaults)
  --reuse              as --reuse-rl, and read a finished distillation arm of the same settings back too
  --seeds S1,S2,…      run (or with --reuse, read back) each seed in <run-dir>/seed-<S>/ and report the
                       figures of the seeds' mean curves, each seed's beside them (default: --seed alone)
  --smoke              0.15 min (and 1 update) per arm, evaluations of 2 episodes every 0.075 min, 1 client,
                       batch 1 × group 2 (plumbing only)
  --run-dir DIR        where everything goes (default a temp folder)`;

const num = (args: string[], flag: string, d: number): number => {
  const v = Number(argValue(args, flag) ?? d);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} must be a positive number\n${distillBenchHelp}`);
  return v;
};

function mergeMode(args: string[]): MergeMode {
  const m = MergeModeSchema.safeParse(argValue(args, '--merge') ?? 'linear');
  if (!m.success) throw new Error(`--merge must be linear, tree or none\n${distillBenchHelp}`);
  return m.data;
}

/** Everything one seed's run needs besides its seed and folder. */
interface DistillPlan {
  base: Omit<DistillArmOptions, 'name' | 'runDir' | 'seed'>;
  /** The distillation arm's settings that may differ from RL's. */
  variant: { batch: number; groupSize: number; clients: number; lr: number; lrEnd: number };
  teacher: { weight: number; topK: number; keep: number };
  armDir: string;
  reuseRl: boolean;
  reuseDistill: boolean;
  log: (line: string) => void;
}

interface SeedRun {
  seed: number;
  runDir: string;
  rl: DistillArmResult;
  distill: DistillArmResult;
  rlReused: boolean;
}

function planOf(args: string[], smoke: boolean): DistillPlan {
  const weight = Number(argValue(args, '--distill-weight') ?? 1);
  if (!(weight > 0 && weight <= 1)) throw new Error(`--distill-weight must be in (0, 1]\n${distillBenchHelp}`);
  const keep = Number(argValue(args, '--distill-keep') ?? 1);
  if (!(keep > 0 && keep <= 1)) throw new Error(`--distill-keep must be in (0, 1]\n${distillBenchHelp}`);
  const base: DistillPlan['base'] = {
    minutes: smoke ? 0.15 : num(args, '--minutes', 15),
    evalEveryMinutes: smoke ? 0.075 : num(args, '--eval-every', 2.5),
    evalEpisodes: smoke ? 2 : num(args, '--eval-episodes', 100),
    clients: smoke ? 1 : num(args, '--clients', 6),
    batch: smoke ? 1 : 8,
    groupSize: smoke ? 2 : 8,
    minUpdates: smoke ? 1 : 0,
    lr: num(args, '--lr', 3.5e-4),
    lrEnd: num(args, '--lr-end', 1e-4),
    threads: num(args, '--threads', 1),
    merge: mergeMode(args),
    log: (line: string): void => console.error(line),
  };
  const groupSize = smoke ? base.groupSize : num(args, '--distill-group-size', base.groupSize);
  if (!Number.isInteger(groupSize) || base.groupSize % groupSize !== 0)
    throw new Error(`--distill-group-size must divide ${base.groupSize}\n${distillBenchHelp}`);
  const perGroup = base.groupSize / groupSize;
  const batch = smoke ? base.batch : num(args, '--distill-batch', base.batch) * perGroup;
  const lr = num(args, '--distill-lr', base.lr);
  const topK = Number(argValue(args, '--distill-top-k') ?? 0);
  if (!(Number.isInteger(topK) && topK >= 0 && topK <= MAX_TOP_K))
    throw new Error(`--distill-top-k must be an integer in [0, ${MAX_TOP_K}]\n${distillBenchHelp}`);
  const reuseDistill = args.includes('--reuse');
  const reuseRl = reuseDistill || args.includes('--reuse-rl');
  if (reuseRl && !argValue(args, '--run-dir'))
    throw new Error(`--reuse-rl and --reuse need the --run-dir of the earlier run\n${distillBenchHelp}`);
  return {
    base,
    variant: { batch, groupSize, clients: base.clients * perGroup, lr, lrEnd: (base.lrEnd * lr) / base.lr },
    teacher: { weight, topK, keep },
    armDir: distillArmDir(
      { batch, lr, topK, groupSize, weight, keep },
      { batch: base.batch * perGroup, lr: base.lr, topK: 0, groupSize: base.groupSize, weight: 1, keep: 1 },
    ),
    reuseRl,
    reuseDistill,
    log: base.log,
  };
}

function seedsOf(args: string[]): number[] {
  const list = argValue(args, '--seeds');
  const seeds = list === undefined ? [num(args, '--seed', 1)] : list.split(',').map(Number);
  if (seeds.length === 0 || seeds.some((s) => !(Number.isInteger(s) && s > 0)) || new Set(seeds).size !== seeds.length)
    throw new Error(`--seeds must be distinct positive integers, comma-separated\n${distillBenchHelp}`);
  return seeds;
}

/** One seed: the RL arm (also the teacher; or read back), then distillation from it (or read back). */
async function runSeed(plan: DistillPlan, seed: number, runDir: string): Promise<SeedRun> {
  const { base, log } = plan;
  log(`distill bench in ${runDir}: seed ${seed}, ${base.minutes} min per arm, merge ${base.merge}`);
  log('1. RL on the verifiable reward (also the teacher)');
  const rlOptions: DistillArmOptions = { ...base, seed, name: 'rl', runDir: join(runDir, 'rl') };
  const reused = plan.reuseRl ? finishedArm(rlOptions) : null;
  const distillOptions: DistillArmOptions = {
    ...base,
    ...plan.variant,
    seed,
    name: 'distill',
    runDir: join(runDir, plan.armDir),
  };
  const done = plan.reuseDistill && reused ? finishedArm(distillOptions) : null;
  if (!reused) refuseOccupiedArm(rlOptions.runDir, 'rl');
  if (!done) refuseOccupiedArm(distillOptions.runDir, 'distill');
  if (reused) log(`  [rl] reused from ${rlOptions.runDir} (${reused.updates} updates)`);
  const rl = reused ?? (await runDistillArm(rlOptions));
  if (done) {
    log(`  [distill] reused from ${distillOptions.runDir} (${done.updates} updates)`);
    return { seed, runDir, rl, distill: done, rlReused: true };
  }
  log('2. the teacher: a worker resumed from the RL run, serving its final weights');
  const token = randomBytes(16).toString('hex');
  const teacher = await startWorker(
    { runDir: rl.workerDir, port: 0 },
    { resume: true, tokens: { admin: token, join: randomBytes(16).toString('hex') }, log: () => undefined },
  );
  try {
    log('3. on-policy distillation from the teacher');
    const distill = await runDistillArm({ ...distillOptions, teacher: { url: teacher.url, token, ...plan.teacher } });
    return { seed, runDir, rl, distill, rlReused: reused !== null };
  } finally {
    await teacher.dispose();
  }
}

/** The target figures of an RL (teacher) curve and a distillation curve from the same warm start. */
function targetFigures(rl: readonly CurvePoint[], distill: readonly CurvePoint[]) {
  const teacherGain = gainPp(rl);
  const target = rl[0]!.success + (0.8 * teacherGain) / 100;
  const at = (f: typeof minutesTo, c: readonly CurvePoint[]): number | null => {
    const m = teacherGain > 0 ? f(c, target) : null;
    return m === null ? null : round(m, 2);
  };
  return {
    target,
    teacher_gain_pp: round(teacherGain),
    distill_gain_pp: round(gainPp(distill)),
    rl_gain_pp: round(teacherGain),
    distill_minutes_to_80pct: at(minutesTo, distill),
    rl_minutes_to_same: at(minutesTo, rl),
    distill_minutes_interpolated: at(crossingMinutes, distill),
    rl_minutes_interpolated: at(crossingMinutes, rl),
  };
}

/** Writes the chart of an RL curve (the teacher's level drawn flat) and a distillation curve. */
function chart(file: string, rl: readonly CurvePoint[], distill: readonly CurvePoint[], target: number): void {
  const teacher = [rl.at(-1)!, { ...rl.at(-1)!, minutes: 0 }].reverse();
  writeFileSync(file, curvesSvg({ teacher, rl, distill }, target));
}

export async function benchDistill(args: string[]): Promise<Record<string, unknown>> {
  if (args.includes('--help')) {
    console.error(distillBenchHelp);
    process.exit(0);
  }
  const smoke = args.includes('--smoke');
  const runDir = argValue(args, '--run-dir') ?? mkdtempSync(join(tmpdir(), 'aj-bench-distill-'));
  const plan = planOf(args, smoke);
  const seeds = seedsOf(args);
  const several = argValue(args, '--seeds') !== undefined;
  const { log } = plan;
  const runs: SeedRun[] = [];
  const perSeed: ReturnType<typeof targetFigures>[] = [];
  for (const seed of seeds) {
    const run = await runSeed(plan, seed, several ? join(runDir, `seed-${seed}`) : runDir);
    const f = targetFigures(run.rl.curve, run.distill.curve);
    chart(join(run.runDir, `${plan.armDir}.svg`), run.rl.curve, run.distill.curve, f.target);
    log(curvesTable({ rl: run.rl.curve, distill: run.distill.curve }));
    log(
      `seed ${seed}: teacher ${f.teacher_gain_pp} pp; target (warm + 80 % of it) ${(100 * f.target).toFixed(1)} %: ` +
        `distill at ${f.distill_minutes_to_80pct ?? '—'} min, rl at ${f.rl_minutes_to_same ?? '—'}; ` +
        `updates rl ${run.rl.updates}, distill ${run.distill.updates}`,
    );
    runs.push(run);
    perSeed.push(f);
  }
  const rlMean = meanCurve(runs.map((r) => r.rl.curve));
  const distillMean = meanCurve(runs.map((r) => r.distill.curve));
  const f = targetFigures(rlMean.curve, distillMean.curve);
  if (several) {
    const pm = (c: readonly CurvePoint[], se: readonly number[]): string =>
      c
        .map((p, i) => `${p.minutes.toFixed(1)}m ${(100 * p.success).toFixed(1)}±${(100 * se[i]!).toFixed(1)}`)
        .join(' · ');
    log(`mean of ${runs.length} seeds (± standard error over seeds):`);
    log(`  rl       ${pm(rlMean.curve, rlMean.se)}`);
    log(`  distill  ${pm(distillMean.curve, distillMean.se)}`);
    chart(join(runDir, `${plan.armDir}.svg`), rlMean.curve, distillMean.curve, f.target);
  }
  log(
    `teacher ${f.teacher_gain_pp} pp; target ${(100 * f.target).toFixed(1)} %; distill at ` +
      `${f.distill_minutes_interpolated ?? '—'} min, rl at ${f.rl_minutes_interpolated ?? '—'} (interpolated)`,
  );
  const steps = (pick: (r: SeedRun) => number | undefined): number | null => {
    const xs = runs.map(pick).filter((x): x is number => x !== undefined);
    return xs.length === 0 ? null : round(mean(xs), 3);
  };
  const { target: _target, ...figures } = f;
  return {
    bench: 'distill',
    ...figures,
    rl_updates: round(mean(runs.map((r) => r.rl.updates))),
    distill_updates: round(mean(runs.map((r) => r.distill.updates))),
    rl_step_s: steps((r) => r.rl.stepSeconds),
    distill_step_s: steps((r) => r.distill.stepSeconds),
    distill_prefetched: steps((r) => r.distill.prefetched),
    distill_kept: steps((r) => r.distill.kept),
    distill_batch: plan.variant.batch,
    distill_group_size: plan.variant.groupSize,
    distill_weight: plan.teacher.weight,
    distill_keep: plan.teacher.keep,
    distill_lr: plan.variant.lr,
    distill_top_k: plan.teacher.topK,
    rl_reused: runs.every((r) => r.rlReused),
    ...(several
      ? {
          seeds,
          seed_distill_minutes: perSeed.map((s) => s.distill_minutes_to_80pct),
          seed_rl_minutes: perSeed.map((s) => s.rl_minutes_to_same),
        }
      : {}),
  };
}
