// Iterated labelling in a live workbench session (`agentjet ui --relabel-every K --labels-per-round M`): a
// RelabelLoop whose rounds ask the person at the workbench. A round takes the label queue's M proposals (the
// current policy's least certain episodes or pairs, scored with the run's newest reward model), announces them
// (log line + toast-worthy event through `notify`) and waits until they are labelled in the Rewards panel —
// or `waitMs` passed, or the session ended; then, if it got labels, a new reward-model version is trained with
// the workbench's defaults (the engine's own process) and deployed into the live clients (hot-swap).
import type { QueueItem } from '../../shared/rewards-api';
import { pairKey } from '../store/rewards-types';
import type { Store } from '../store/types';
import type { LabelsService } from './labels-service';
import { RelabelLoop } from './relabel-loop';
import type { RewardModelService } from './reward-model-service';

export interface LiveRelabelOptions {
  runId: string;
  every: number;
  perRound: number;
  store: Store;
  flush: () => void;
  labels: Pick<LabelsService, 'labelQueue'>;
  rewardModels: Pick<RewardModelService, 'trainRewardModel' | 'rewardModels' | 'deployRewardModel'>;
  /** Tells the person (the workbench log and a toast). */
  notify: (line: string) => void;
  /** How long a round waits for its labels (default 30 minutes). */
  waitMs?: number;
  pollMs?: number;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** How many of a round's proposals are labelled now. */
export function labelledCount(store: Store, runId: string, items: readonly QueueItem[]): number {
  const sets = store.labelledSets(runId);
  return items.filter((i) =>
    i.kind === 'pair' ? sets.pairs.has(pairKey(i.episodeId, i.otherEpisodeId)) : sets.points.has(i.episodeId),
  ).length;
}

export function liveRelabelLoop(o: LiveRelabelOptions): RelabelLoop {
  const poll = o.pollMs ?? 2000;
  return new RelabelLoop({
    every: o.every,
    perRound: o.perRound,
    log: o.notify,
    label: async (round, limit, signal) => {
      const { items } = await o.labels.labelQueue({ runId: o.runId, mode: 'auto', limit });
      if (items.length === 0) return 0;
      o.notify(
        `label round ${round}: the Rewards panel's label queue proposes ${items.length} ` +
          `${items[0]!.kind === 'pair' ? 'pairs' : 'episodes'} of the current policy; a new reward model trains when ` +
          'they are labelled',
      );
      const deadline = Date.now() + (o.waitMs ?? 30 * 60_000);
      let done = 0;
      for (;;) {
        o.flush();
        done = labelledCount(o.store, o.runId, items);
        if (done === items.length || signal.aborted || Date.now() >= deadline) return done;
        await sleep(poll, signal);
      }
    },
    retrain: async () => {
      const { version } = await o.rewardModels.trainRewardModel({
        runId: o.runId,
        loss: 'pairwise',
        epochs: 1,
        lr: 1e-4,
        heldout: 0.2,
        maxMinutes: 20,
      });
      for (;;) {
        const r = await o.rewardModels.rewardModels({ runId: o.runId });
        if (r.training && r.training.version === version && r.training.state !== 'training') {
          if (r.training.state === 'failed') throw new Error(`reward model v${version}: ${r.training.detail}`);
          break;
        }
        if (!r.training && r.models.some((m) => m.version === version)) break;
        await new Promise((resolve) => setTimeout(resolve, poll));
      }
      await o.rewardModels.deployRewardModel({ runId: o.runId, version });
      return version;
    },
  });
}
