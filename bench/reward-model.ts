// Benchmark `reward-model`: does the learned-reward loop close? On this machine's CPU with the built-in
// model it measures, in order:
//  1. labels: the warm policy plays --label-tasks train tasks × --label-group episodes; each is labelled
//     good/bad by its verifiable success (the verifier plays the human) through the labels service;
//  2. reward-model training (the workbench's RewardModelService → the engine's reward-model process):
//     wall time and held-out accuracy (pairs of one task: the good episode scored above the bad one);
//  3. ONNX vs PyTorch: the largest |difference| of scores (the engine's onnxruntime check, and this Node
//     process's onnxruntime-node scores against PyTorch's, token ids compared);
//  4. scoring throughput in one client process (conversations/s at batch 1 and 16) and its share of an
//     episode's wall time;
//  5. policy training for --minutes per arm from the same warm start (reward-model-arms.ts): the reward
//     model's score as the only reward (calculator-rm, rule weight 0) — trained once, plus a KL penalty,
//     plus iterated labelling, plus an ensemble's uncertainty penalty — vs the verifiable reward
//     (calculator-agent); held-out success (verifiable, --eval-episodes of the eval split) before and
//     after, gains in points ± 1 s.e., labels used per arm.
// --skip-policy stops after 4 (minutes, not an hour).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startWorker } from '../gpu-worker/src/worker';
import { workerConfigFromOptions, WorkerOptionsSchema } from '../src/cli/worker';
import { conversationFromTimelines } from '../src/node/services/labels-dataset';
import { RewardModelService } from '../src/node/services/reward-model-service';
import { openStore } from '../src/node/store/store';
import type { Conversation } from '../src/shared/reward-model';
import { REWARD_SCALES, type RewardScale } from '../src/shared/advantages';
import { RM_FORMS, type RmForm } from '../resources/examples/calculator-rm/reward';
import type { WorkbenchEvent } from '../src/shared/workbench-api';
import { argValue, round } from './engine';
import { ARM_NAMES, armSpecs, runArms, type ArmName, type ArmOutcome } from './reward-model-arms';
import { collectLabels } from './reward-model-collect';
import { LABEL_PICKS, trainRm, type LabelPick } from './reward-model-loop';
import { benchScoring } from './reward-model-scoring';
import { binomialSe } from './train-stats';

export const rewardModelBenchHelp = `npm run bench -- reward-model [options]
  --label-tasks N      train tasks played for labels (default 60)
  --label-group G      episodes per task (default 8): labels from N × G episodes
  --rm-loss L          pairwise | pointwise | both (default both)
  --rm-epochs E        fine-tuning epochs after the score head is fitted on frozen features (default 0.25)
  --rm-lr LR           fine-tuning learning rate (default 1e-4)
  --rm-max-length L    tokens per conversation the reward model reads, the last ones (default 128: all
                       after the system turn, which is the same in every episode)
  --minutes M          policy-training minutes of each arm (default 15)
  --clients N          client processes per arm (default 6; each plays a group of 8 at once)
  --eval-episodes E    held-out eval episodes (default 200, the whole eval split)
  --lr LR --lr-end LR  policy learning rate, decayed linearly over the run (default 3.5e-4 → 1e-4)
  --threads T          engine threads (default 1)     --seed S (default 1)
  --arms A,B,…         policy arms (default all): rm (trained once, no KL), rm-kl, rm-kl-relabel,
                       rm-kl-relabel-ens, verifiable
  --kl-coef K          the rm-kl* arms' KL penalty to the initial policy (default 0.1; see --kl-sweep)
  --kl-sweep a,b,…     extra rm-kl arms at these coefficients
  --scale-rewards S    GRPO's divisor in every arm: group (the group's reward std; default), batch (the
                       update's), none (Dr. GRPO) — the worker's --scale-rewards
  --scale-sweep a,b,…  extra rm-kl arms at these scales (named rm-kl/<scale>)
  --rm-form F          how the score is the reward in every rm arm: standardized ((s − mean) / std over its
                       training episodes; default) or probability (the model's P(good), 0..1; not with the
                       ensemble arm) — calculator-rm's AGENTJET_RM_FORM
  --form-sweep a,b,…   extra rm-kl arms in these forms (named rm-kl/<form>)
  --relabel-every K    policy updates between labelling rounds (default 10)
  --labels-per-round M labels per round of the policy's newest episodes (default 32)
  --label-pick P       which ones: uncertain (the reward model least sure), top (it scores highest: where the
                       policy goes and hacking shows), mix (half each; default uncertain)
  --ensemble E         members of the ensemble arm (default 3, seeds 0…E−1)
  --ensemble-k k       the ensemble's score: mean − k·std of the members' standardized scores (default 1)
  --skip-policy        stop after the reward model's figures (no policy training)
  --run-dir DIR        where everything goes (default a temp folder)`;

const num = (args: string[], flag: string, d: number): number => {
  const v = Number(argValue(args, flag) ?? d);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} must be a positive number\n${rewardModelBenchHelp}`);
  return v;
};
const pp = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(1)} pp`;
const nonNegative = (args: string[], flag: string, d: number): number => {
  const v = Number(argValue(args, flag) ?? d);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${flag} must be a number ≥ 0\n${rewardModelBenchHelp}`);
  return v;
};

function labelPick(raw: string | undefined): LabelPick {
  const pick = raw ?? 'uncertain';
  const found = LABEL_PICKS.find((p) => p === pick);
  if (found === undefined) throw new Error(`--label-pick must be one of ${LABEL_PICKS.join(', ')}`);
  return found;
}

function rewardScale(raw: string): RewardScale {
  const found = REWARD_SCALES.find((s) => s === raw);
  if (found === undefined) throw new Error(`--scale-rewards and --scale-sweep take ${REWARD_SCALES.join(', ')}`);
  return found;
}

function rmForm(raw: string): RmForm {
  const found = RM_FORMS.find((f) => f === raw);
  if (found === undefined) throw new Error(`--rm-form and --form-sweep take ${RM_FORMS.join(', ')}`);
  return found;
}

function parseArms(raw: string | undefined): ArmName[] {
  if (raw === undefined) return [...ARM_NAMES];
  const names = raw.split(',').filter(Boolean);
  const bad = names.filter((n) => !(ARM_NAMES as readonly string[]).includes(n));
  if (bad.length > 0) throw new Error(`--arms: unknown ${bad.join(', ')} (arms: ${ARM_NAMES.join(', ')})`);
  return ARM_NAMES.filter((n) => names.includes(n));
}

function armLine(a: ArmOutcome): string {
  const r = a.result;
  const quarters = r.trainSuccessByQuarter.map((x) => `${(100 * x).toFixed(0)}%`).join(' → ');
  const loop = a.spec.relabel
    ? ` · ${a.rounds} relabel rounds, versions ${a.versions.map((v) => `v${v}`).join(' ')}`
    : '';
  return (
    `  ${a.spec.name.padEnd(18)}: ${(100 * r.final.successRate).toFixed(1)}% after ${(r.trainSeconds / 60).toFixed(1)} min,` +
    ` ${r.updates} updates, ${r.trainEpisodes} train episodes: ${pp(a.gainPp)} ± ${a.gainSe.toFixed(1)} · labels ${a.labels}` +
    `${loop} · train success by quarter ${quarters}${r.failedEpisodes ? ` · ${r.failedEpisodes} failed episodes` : ''}`
  );
}

export async function benchRewardModel(args: string[]): Promise<Record<string, unknown>> {
  if (args.includes('--help')) {
    console.log(rewardModelBenchHelp);
    process.exit(0);
  }
  const o = {
    labelTasks: num(args, '--label-tasks', 60),
    labelGroup: num(args, '--label-group', 8),
    rmEpochs: num(args, '--rm-epochs', 0.25),
    rmLr: num(args, '--rm-lr', 1e-4),
    rmMaxLength: num(args, '--rm-max-length', 128),
    minutes: num(args, '--minutes', 15),
    clients: num(args, '--clients', 6),
    evalEpisodes: num(args, '--eval-episodes', 200),
    lr: num(args, '--lr', 3.5e-4),
    lrEnd: num(args, '--lr-end', 1e-4),
    threads: num(args, '--threads', 1),
    seed: num(args, '--seed', 1),
    rmLoss: argValue(args, '--rm-loss') ?? 'both',
    skipPolicy: args.includes('--skip-policy'),
    arms: parseArms(argValue(args, '--arms')),
    klCoef: nonNegative(args, '--kl-coef', 0.1),
    klSweep: (argValue(args, '--kl-sweep') ?? '').split(',').filter(Boolean).map(Number),
    scaleRewards: rewardScale(argValue(args, '--scale-rewards') ?? 'group'),
    scaleSweep: (argValue(args, '--scale-sweep') ?? '').split(',').filter(Boolean).map(rewardScale),
    rmForm: rmForm(argValue(args, '--rm-form') ?? 'standardized'),
    formSweep: (argValue(args, '--form-sweep') ?? '').split(',').filter(Boolean).map(rmForm),
    relabelEvery: num(args, '--relabel-every', 10),
    labelsPerRound: num(args, '--labels-per-round', 32),
    labelPick: labelPick(argValue(args, '--label-pick')),
    ensemble: num(args, '--ensemble', 3),
    ensembleK: nonNegative(args, '--ensemble-k', 1),
  };
  if (o.klSweep.some((k) => !Number.isFinite(k) || k < 0)) throw new Error('--kl-sweep takes coefficients ≥ 0');
  if (o.rmForm === 'probability' && o.arms.includes('rm-kl-relabel-ens'))
    throw new Error(
      '--rm-form probability: the ensemble arm scores standardized (name --arms without rm-kl-relabel-ens)',
    );
  const runDir = resolve(argValue(args, '--run-dir') ?? mkdtempSync(join(tmpdir(), 'agentjet-bench-rm-')));
  mkdirSync(runDir, { recursive: true });
  const out = (line: string): void => console.log(line);
  out(
    `reward-model bench: labels from ${o.labelTasks}×${o.labelGroup} episodes judged by the verifiable reward → reward model (${o.rmLoss}) → ONNX parity, scoring throughput → ${
      o.skipPolicy
        ? 'no policy training'
        : `policy trained ${o.minutes} min per arm: ${armSpecs(o, 'bench-rm')
            .map((a) => a.name)
            .join(', ')}`
    } · run dir ${runDir}`,
  );
  const wall0 = performance.now();
  const store = openStore(join(runDir, 'workbench.sqlite'));
  const runId = 'bench-rm';
  // The arms that add labels of their own get a run each, with the first labels copied in.
  const copies = o.skipPolicy ? [] : [...new Set(armSpecs(o, runId).map((a) => a.runId))].filter((r) => r !== runId);
  for (const id of [runId, ...copies])
    store.createRun({
      runId: id,
      name: `reward-model bench ${id}`,
      mode: 'local',
      workerUrl: '',
      model: 'builtin',
      example: 'calculator-agent',
      config: o,
      createdAt: Date.now(),
    });
  const events: WorkbenchEvent[] = [];
  let lastShown = -1;
  const onEvent = (e: WorkbenchEvent): void => {
    events.push(e);
    if (e.type !== 'reward_model' || e.status.state !== 'training') return;
    const tenth = Math.floor(10 * (e.status.fraction ?? 0));
    if (tenth === lastShown) return;
    lastShown = tenth;
    out(`  reward model v${e.status.version}: ${e.status.detail}`);
  };
  const service = new RewardModelService({
    store,
    dataDir: runDir,
    emit: onEvent,
    log: () => undefined,
    live: () => null,
    threads: 2,
  });
  try {
    // 1. Labels.
    const wo = WorkerOptionsSchema.parse({
      runDir: join(runDir, 'label-worker'),
      port: '0',
      model: 'builtin',
      threads: String(o.threads),
      seed: String(o.seed),
    });
    const tokens = { admin: randomBytes(16).toString('hex'), join: randomBytes(16).toString('hex') };
    const worker = await startWorker(workerConfigFromOptions(wo).config, { tokens, log: () => undefined });
    const collected = await collectLabels({
      url: worker.url,
      adminToken: tokens.admin,
      joinToken: tokens.join,
      store,
      runId,
      copies,
      tasks: o.labelTasks,
      group: o.labelGroup,
      concurrency: 8,
      offset: 1000,
      log: out,
    }).finally(() => worker.dispose());
    out(
      `labels: ${collected.episodes} episodes (${collected.successes} good, ${collected.episodes - collected.successes} bad; ${collected.mixedGroups} of ${o.labelTasks} tasks mixed) in ${collected.seconds.toFixed(0)} s · an episode takes ${collected.meanEpisodeS.toFixed(2)} s`,
    );

    // 2. Reward model.
    const t0 = performance.now();
    const rm = await trainRm(service, events, runId, o);
    const rmSeconds = (performance.now() - t0) / 1000;
    out(
      `reward model v${rm.version}: held-out accuracy ${rm.heldoutAccuracy === null ? 'n/a' : `${(100 * rm.heldoutAccuracy).toFixed(1)}%`} on ${rm.heldoutLabels} held-out labels · ${rmSeconds.toFixed(0)} s wall (${rm.trainSeconds.toFixed(0)} s of training steps) · ${rm.pointLabels} point labels`,
    );

    // 3–4. Parity and throughput in this process.
    const convs: Conversation[] = store.episodesPage(runId, {}, 0, 1000, 'oldest').rows.flatMap((r) => {
      const c = conversationFromTimelines(store.episodeTimelines(runId, r.episodeId));
      return c ? [c] : [];
    });
    const s = await benchScoring(rm.folder, rm.sha256, convs.slice(-64).concat(convs.slice(0, 32)), runDir, 1);
    const onnxDiff = Math.max(rm.onnxMaxAbsDiff, s.nodeVsTorchMaxAbsDiff);
    const share = s.msPerConversationB1 / 1000 / (collected.meanEpisodeS + s.msPerConversationB1 / 1000);
    out(
      `ONNX vs PyTorch: max |diff| ${onnxDiff.toExponential(2)} (engine onnxruntime ${rm.onnxMaxAbsDiff.toExponential(2)}, Node onnxruntime-node ${s.nodeVsTorchMaxAbsDiff.toExponential(2)} over ${s.parityConversations}; token ids ${s.tokenIdsEqual ? 'equal' : 'DIFFER'})`,
    );
    out(
      `scoring in one process (${s.meanTokens.toFixed(0)} tokens per conversation): ${s.perSecondB1.toFixed(1)} conversations/s at batch 1, ${s.perSecondB16.toFixed(1)} at batch 16 (×${(s.perSecondB16 / s.perSecondB1).toFixed(2)}) · ${s.msPerConversationB1.toFixed(1)} ms per episode = ${(100 * share).toFixed(2)}% of an episode's ${collected.meanEpisodeS.toFixed(2)} s`,
    );

    const summary: Record<string, unknown> = {
      bench: 'reward-model',
      heldout_accuracy: rm.heldoutAccuracy === null ? null : round(rm.heldoutAccuracy, 3),
      onnx_max_abs_diff: Number(onnxDiff.toExponential(2)),
      scores_per_s_b16: round(s.perSecondB16, 1),
      rm_gain_pp: null as number | null,
      verifiable_gain_pp: null as number | null,
      scores_per_s_b1: round(s.perSecondB1, 1),
      scoring_share_of_episode: round(share, 4),
      rm_train_s: round(rmSeconds, 1),
      labels: collected.episodes,
      heldout_labels: rm.heldoutLabels,
    };
    if (!o.skipPolicy) {
      // 5. Policy training, the same minutes each, from the same warm start.
      const { warm, arms } = await runArms(o, {
        store,
        baseRun: runId,
        service,
        events,
        runDir,
        rm: { folder: rm.folder, sha256: rm.sha256, version: rm.version },
        baseLabels: collected.episodes,
        rmOptions: o,
        log: out,
      });
      out('');
      out(
        `held-out success (${o.evalEpisodes} eval episodes, ± 1 s.e.): warm start ${(100 * warm.successRate).toFixed(1)}% ± ${(100 * binomialSe(warm.successRate, warm.episodes)).toFixed(1)}`,
      );
      for (const a of arms) out(armLine(a));
      const by = (name: string): ArmOutcome | undefined => arms.find((a) => a.spec.name === name);
      Object.assign(summary, {
        rm_gain_pp: by('rm') ? round(by('rm')!.gainPp, 1) : null,
        verifiable_gain_pp: by('verifiable') ? round(by('verifiable')!.gainPp, 1) : null,
        loop_gain_pp: by('rm-kl-relabel-ens') ? round(by('rm-kl-relabel-ens')!.gainPp, 1) : null,
        success_warm: round(warm.successRate, 3),
        arms: Object.fromEntries(
          arms.map((a) => [
            a.spec.name,
            {
              gain_pp: round(a.gainPp, 1),
              se: round(a.gainSe, 1),
              success: round(a.result.final.successRate, 3),
              labels: a.labels,
              kl: a.spec.klCoef,
              scale: a.spec.scale,
              form: a.spec.form,
              updates: a.result.updates,
              ...(a.spec.relabel ? { rounds: a.rounds, versions: a.versions } : {}),
            },
          ]),
        ),
        minutes: o.minutes,
        eval_episodes: o.evalEpisodes,
        ...(o.arms.some((a) => a.includes('relabel'))
          ? { relabel_every: o.relabelEvery, labels_per_round: o.labelsPerRound, label_pick: o.labelPick }
          : {}),
        ...(o.arms.includes('rm-kl-relabel-ens') ? { ensemble: o.ensemble, ensemble_k: o.ensembleK } : {}),
      });
    }
    summary['wall_minutes'] = round((performance.now() - wall0) / 60_000, 1);
    return summary;
  } finally {
    await service.dispose();
    store.close();
  }
}
