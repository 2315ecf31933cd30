// Benchmark `reward-model`, part 4: the reward-model loop that closes. Reward-model training through the
// workbench's RewardModelService (one member, or an ensemble of members trained with different seeds), and
// iterated labelling as hooks of a policy arm: every --relabel-every updates the RelabelLoop asks for
// --labels-per-round labels; the arm's newest train episodes are fetched into the store as the workbench
// does, the label queue (LabelsService, scored with the run's newest reward model) proposes the least
// certain ones, the highest-scored ones (--label-pick top) or half of each (mix), the verifiable reward
// answers for the human, a new version is trained on every label so far and hot-swapped into the clients
// (a new pointer, a new code version).
import { EpisodeFetcher, type FetchedEpisode } from '../src/node/services/episode-fetcher';
import { LabelsService } from '../src/node/services/labels-service';
import { RelabelLoop } from '../src/node/services/relabel-loop';
import type { RewardModelService } from '../src/node/services/reward-model-service';
import type { Store } from '../src/node/store/types';
import { WorkerClient } from '../src/node/worker-client';
import { rewardModelPointerSource, type RewardEnsembleRef, type RewardModelRef } from '../src/shared/reward-model';
import type { RewardModelRow } from '../src/shared/rewards-api';
import type { WorkbenchEvent } from '../src/shared/workbench-api';
import type { ArmContext, ArmHooks } from './reward-model-policy';

export const LABEL_PICKS = ['uncertain', 'top', 'mix'] as const;
export type LabelPick = (typeof LABEL_PICKS)[number];

/** One ask of the label queue: its mode and how many proposals. */
type QueueAsk = { mode: 'points' | 'top'; limit: number };

/** The label queue's asks of a round: `mix` takes the top half first. */
export function pickPlan(pick: LabelPick, limit: number): QueueAsk[] {
  if (pick === 'uncertain') return [{ mode: 'points', limit }];
  if (pick === 'top') return [{ mode: 'top', limit }];
  const top = Math.ceil(limit / 2);
  const plan: QueueAsk[] = [
    { mode: 'top', limit: top },
    { mode: 'points', limit: limit - top },
  ];
  return plan.filter((p) => p.limit > 0);
}

export interface RmTrainOptions {
  rmLoss: string;
  rmEpochs: number;
  rmLr: number;
  rmMaxLength: number;
}

/** Trains one reward-model version on the run's labels (the engine's process) and waits for it. */
export async function trainRm(
  service: RewardModelService,
  events: WorkbenchEvent[],
  runId: string,
  o: RmTrainOptions,
  seed?: number,
): Promise<RewardModelRow> {
  const loss = o.rmLoss === 'pairwise' || o.rmLoss === 'pointwise' ? o.rmLoss : 'both';
  const { version } = await service.trainRewardModel({
    runId,
    loss,
    epochs: o.rmEpochs,
    lr: o.rmLr,
    heldout: 0.2,
    maxMinutes: 60,
    maxLength: o.rmMaxLength,
    ...(seed !== undefined ? { seed } : {}),
  });
  for (;;) {
    const last = events.filter((e) => e.type === 'reward_model' && e.status.version === version).at(-1);
    if (last?.type === 'reward_model' && last.status.state !== 'training') {
      if (last.status.state === 'failed' || !last.model)
        throw new Error(`reward-model training failed: ${last.status.detail}`);
      return last.model;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

export interface TrainedRm {
  /** What the pointer names: one model, or the ensemble. */
  ref: RewardModelRef | RewardEnsembleRef;
  rows: RewardModelRow[];
}

/** `members` versions (seeds 0…members−1) on the same labels; more than one: an ensemble with penalty k. */
export async function trainMembers(
  service: RewardModelService,
  events: WorkbenchEvent[],
  runId: string,
  o: RmTrainOptions,
  members: number,
  stdPenalty: number,
): Promise<TrainedRm> {
  const rows: RewardModelRow[] = [];
  for (let i = 0; i < members; i++) {
    const seed = members > 1 ? i : undefined;
    // A member whose export misses the ONNX parity check (it happens for some seeds) is retrained once with another.
    rows.push(
      await trainRm(service, events, runId, o, seed).catch((err: unknown) => {
        if (seed === undefined || !String(err).includes('ONNX')) throw err;
        return trainRm(service, events, runId, o, seed + members);
      }),
    );
  }
  const refs = rows.map((r) => ({ folder: r.folder, sha256: r.sha256, version: r.version }));
  return { ref: refs.length > 1 ? { members: refs, stdPenalty } : refs[0]!, rows };
}

export interface RelabelHooksOptions {
  store: Store;
  service: RewardModelService;
  events: WorkbenchEvent[];
  /** The arm's own run in the store (its labels: the first ones and every round's). */
  runId: string;
  every: number;
  perRound: number;
  pick: LabelPick;
  members: number;
  stdPenalty: number;
  rm: RmTrainOptions;
  log: (line: string) => void;
}

/** The hooks of an arm that relabels, and its loop (rounds, labels). */
export function relabelHooks(o: RelabelHooksOptions): {
  hooks: (ctx: ArmContext) => ArmHooks;
  loop: () => RelabelLoop | null;
} {
  let loop: RelabelLoop | null = null;
  const hooks = (ctx: ArmContext): ArmHooks => {
    const success = new Map<string, boolean>();
    const recent: string[] = [];
    let stopping = false;
    const fetchRecent = async (n: number): Promise<void> => {
      const want = recent.slice(-n).filter((id) => !stored.has(id));
      const fetched: FetchedEpisode[] = [];
      const fetcher = new EpisodeFetcher(
        new WorkerClient(ctx.url, ctx.adminToken),
        (e) => fetched.push(e),
        () => undefined,
        () => undefined,
      );
      for (const id of want) fetcher.add(id);
      await fetcher.idle();
      fetcher.close();
      o.store.transaction(() => {
        for (const e of fetched) {
          if (e.timelines.length === 0) continue;
          o.store.putEpisode(o.runId, e.row);
          o.store.putEpisodeTimelines(o.runId, e.row.episodeId, e.timelines, e.merged);
          stored.add(e.row.episodeId);
        }
      });
    };
    const stored = new Set<string>();
    loop = new RelabelLoop({
      every: o.every,
      perRound: o.perRound,
      log: o.log,
      label: async (_round, limit) => {
        const pool = Math.max(64, 4 * limit);
        await fetchRecent(pool);
        const labels = new LabelsService({ store: o.store, author: 'verifier', queueCandidates: pool });
        try {
          let n = 0;
          // Each ask sees the labels of the one before (labelled episodes leave the queue).
          for (const ask of pickPlan(o.pick, limit)) {
            const q = await labels.labelQueue({ runId: o.runId, mode: ask.mode, limit: ask.limit });
            for (const item of q.items) {
              const ok = success.get(item.episodeId);
              if (item.kind !== 'point' || ok === undefined) continue;
              await labels.putLabel({
                runId: o.runId,
                label: { kind: ok ? 'good' : 'bad', episodeId: item.episodeId },
              });
              n++;
            }
          }
          return n;
        } finally {
          await labels.dispose();
        }
      },
      retrain: async () => {
        const t = await trainMembers(o.service, o.events, o.runId, o.rm, o.members, o.stdPenalty);
        const version = t.rows.at(-1)!.version;
        if (stopping) return version; // the arm's time is over: trained, not deployed
        const swapped = await ctx.runner.swap({
          entry: ctx.entry,
          overlay: { [ctx.pointerPath]: rewardModelPointerSource(t.ref) },
        });
        if (!swapped.ok) throw new Error(`the clients did not take reward model v${version}`);
        return version;
      },
    });
    return {
      episode: (e) => {
        success.set(e.episodeId, e.success);
        recent.push(e.episodeId);
      },
      step: (updates) => loop?.onStep(updates),
      stop: async () => {
        stopping = true;
        await o.service.dispose(); // a training still running is cancelled (the round records it)
        await loop?.stop();
      },
    };
  };
  return { hooks, loop: () => loop };
}
