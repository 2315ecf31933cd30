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
// 80 % of the teacher's gain (null: not within the budget); the curves in one chart (distill.svg).
// Each arm writes its result to <run-dir>/<arm>/result.json; with --reuse-rl and the same --run-dir, a
// finished RL arm of the same settings is read back (its folder is still the teacher) and only the
// distillation arm runs, so distillation settings (--distill-batch, --distill-lr, --distill-top-k) can be compared
// against one RL run.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker } from '../gpu-worker/src/worker';
import { runDistillArm, type DistillArmOptions } from './distill-arm';
import { distillArmDir, finishedArm } from './distill-result';
import { curvesSvg, curvesTable, gainPp, minutesTo } from './distill-stats';
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

export async function benchDistill(args: string[]): Promise<Record<string, unknown>> {
  if (args.includes('--help')) {
    console.error(distillBenchHelp);
    process.exit(0);
  }
  const smoke = args.includes('--smoke');
  const runDir = argValue(args, '--run-dir') ?? mkdtempSync(join(tmpdir(), 'aj-bench-distill-'));
  const weight = Number(argValue(args, '--distill-weight') ?? 1);
  if (!(weight > 0 && weight <= 1)) throw new Error(`--distill-weight must be in (0, 1]\n${distillBenchHelp}`);
  const keep = Number(argValue(args, '--distill-keep') ?? 1);
  if (!(keep > 0 && keep <= 1)) throw new Error(`--distill-keep must be in (0, 1]\n${distillBenchHelp}`);
  const log = (line: string): void => console.error(line);
  const base: Omit<DistillArmOptions, 'name' | 'runDir'> = {
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
    seed: num(args, '--seed', 1),
    merge: mergeMode(args),
    log,
  };
  const groupSize = smoke ? base.groupSize : num(args, '--distill-group-size', base.groupSize);
  if (!Number.isInteger(groupSize) || base.groupSize % groupSize !== 0)
    throw new Error(`--distill-group-size must divide ${base.groupSize}\n${distillBenchHelp}`);
  const perGroup = base.groupSize / groupSize;
  const distillBatch = smoke ? base.batch : num(args, '--distill-batch', base.batch) * perGroup;
  const distillLr = num(args, '--distill-lr', base.lr);
  const topK = Number(argValue(args, '--distill-top-k') ?? 0);
  if (!(Number.isInteger(topK) && topK >= 0 && topK <= MAX_TOP_K))
    throw new Error(`--distill-top-k must be an integer in [0, ${MAX_TOP_K}]\n${distillBenchHelp}`);
  if (args.includes('--reuse-rl') && !argValue(args, '--run-dir'))
    throw new Error(`--reuse-rl needs the --run-dir of the earlier run\n${distillBenchHelp}`);
  log(`distill bench in ${runDir}: ${base.minutes} min per arm, merge ${base.merge}${smoke ? ' (smoke)' : ''}`);
  log('1. RL on the verifiable reward (also the teacher)');
  const rlOptions: DistillArmOptions = { ...base, name: 'rl', runDir: join(runDir, 'rl') };
  const reused = args.includes('--reuse-rl') ? finishedArm(rlOptions) : null;
  if (reused) log(`  [rl] reused from ${rlOptions.runDir} (${reused.updates} updates)`);
  const rl = reused ?? (await runDistillArm(rlOptions));
  log('2. the teacher: a worker resumed from the RL run, serving its final weights');
  const token = randomBytes(16).toString('hex');
  const teacher = await startWorker(
    { runDir: rl.workerDir, port: 0 },
    { resume: true, tokens: { admin: token, join: randomBytes(16).toString('hex') }, log: () => undefined },
  );
  let distill;
  try {
    log('3. on-policy distillation from the teacher');
    distill = await runDistillArm({
      ...base,
      batch: distillBatch,
      groupSize,
      clients: base.clients * perGroup,
      lr: distillLr,
      lrEnd: (base.lrEnd * distillLr) / base.lr,
      name: 'distill',
      runDir: join(
        runDir,
        distillArmDir(
          { batch: distillBatch, lr: distillLr, topK, groupSize, weight, keep },
          { batch: base.batch * perGroup, lr: base.lr, topK: 0, groupSize: base.groupSize, weight: 1, keep: 1 },
        ),
      ),
      teacher: { url: teacher.url, token, weight, topK, keep },
    });
  } finally {
    await teacher.dispose();
  }
  const warm = rl.curve[0]!.success;
  const teacherGain = gainPp(rl.curve);
  const target = warm + (0.8 * teacherGain) / 100;
  const curves = { teacher: [rl.curve.at(-1)!, { ...rl.curve.at(-1)!, minutes: 0 }].reverse(), rl: rl.curve };
  writeFileSync(join(runDir, 'distill.svg'), curvesSvg({ ...curves, distill: distill.curve }, target));
  log(curvesTable({ rl: rl.curve, distill: distill.curve }));
  log(
    `teacher ${round(teacherGain)} pp; target (warm + 80 % of it) ${(100 * target).toFixed(1)} %; ` +
      `updates rl ${rl.updates}, distill ${distill.updates}; chart ${join(runDir, 'distill.svg')}`,
  );
  const distillMinutes = teacherGain > 0 ? minutesTo(distill.curve, target) : null;
  const rlMinutes = teacherGain > 0 ? minutesTo(rl.curve, target) : null;
  return {
    bench: 'distill',
    teacher_gain_pp: round(teacherGain),
    distill_gain_pp: round(gainPp(distill.curve)),
    rl_gain_pp: round(teacherGain),
    distill_minutes_to_80pct: distillMinutes === null ? null : round(distillMinutes, 2),
    rl_minutes_to_same: rlMinutes === null ? null : round(rlMinutes, 2),
    rl_updates: rl.updates,
    distill_updates: distill.updates,
    rl_step_s: rl.stepSeconds === undefined ? null : round(rl.stepSeconds, 2),
    distill_step_s: distill.stepSeconds === undefined ? null : round(distill.stepSeconds, 2),
    distill_prefetched: distill.prefetched === undefined ? null : round(distill.prefetched, 3),
    distill_kept: distill.kept === undefined ? null : round(distill.kept, 3),
    distill_batch: distillBatch,
    distill_group_size: groupSize,
    distill_weight: weight,
    distill_keep: keep,
    distill_lr: distillLr,
    distill_top_k: topK,
    rl_reused: reused !== null,
  };
}
