// Batching strategies C1–C5 (DESIGN §5): given the pool of finished, untrained episodes (oldest
// first) and the clients' sync agreements, decide whether a policy update happens now, which
// episodes it trains, which are dropped, and how far along the threshold is. Pure: data in,
// data out; no clock.
import type { BatchProgress, Strategy } from './swarm-protocol';

export interface PoolItem {
  episodeId: string;
  taskId: string;
  reward: number;
}

export interface SyncView {
  /** Clients currently considered alive. */
  activeClients: readonly string[];
  /** Active clients that asked for a sync since the last update. */
  agreed: readonly string[];
}

export interface BatchRule {
  strategy: Strategy;
  /** C1: episodes; C2/C3: tasks (complete groups). */
  batch: number;
  /** C2/C3: episodes per task group. */
  groupSize: number;
}

export interface BatchDecision {
  progress: BatchProgress;
  /** Episodes to train now, oldest first; empty unless `progress.ready`. */
  selected: string[];
  /** Episodes to discard (C3: complete groups whose rewards are all equal). */
  drop: string[];
}

/** A task's episodes cut into consecutive groups of `groupSize`, in arrival order. */
interface Group {
  taskId: string;
  items: PoolItem[];
}

/** Complete groups in order of completion position: the task that arrived first comes first. */
export function completeGroups(pool: readonly PoolItem[], groupSize: number): Group[] {
  const byTask = new Map<string, PoolItem[]>();
  for (const item of pool) {
    const list = byTask.get(item.taskId);
    if (list) list.push(item);
    else byTask.set(item.taskId, [item]);
  }
  const groups: Group[] = [];
  for (const [taskId, items] of byTask) {
    for (let i = 0; i + groupSize <= items.length; i += groupSize)
      groups.push({ taskId, items: items.slice(i, i + groupSize) });
  }
  return groups;
}

export const isZeroVariance = (items: readonly PoolItem[]): boolean =>
  items.every((x) => x.reward === items[0]!.reward);

const ids = (items: readonly PoolItem[]): string[] => items.map((x) => x.episodeId);

function groupDecision(pool: readonly PoolItem[], rule: BatchRule, dropFlat: boolean): BatchDecision {
  const groups = completeGroups(pool, rule.groupSize);
  const drop = dropFlat ? groups.filter((g) => isZeroVariance(g.items)).flatMap((g) => ids(g.items)) : [];
  const useful = dropFlat ? groups.filter((g) => !isZeroVariance(g.items)) : groups;
  const ready = useful.length >= rule.batch;
  const partial = new Set(pool.map((x) => x.taskId)).size - new Set(groups.map((g) => g.taskId)).size;
  const detail =
    `${Math.min(useful.length, rule.batch)}/${rule.batch} tasks with ${rule.groupSize} episodes` +
    (dropFlat ? ` and unequal rewards (${drop.length / Math.max(1, rule.groupSize)} flat groups dropped)` : '') +
    `, ${partial} task(s) still filling`;
  return {
    progress: {
      strategy: rule.strategy,
      ready,
      current: Math.min(useful.length, rule.batch),
      target: rule.batch,
      unit: 'tasks',
      detail,
    },
    selected: ready ? useful.slice(0, rule.batch).flatMap((g) => ids(g.items)) : [],
    drop,
  };
}

function syncDecision(pool: readonly PoolItem[], rule: BatchRule, sync: SyncView): BatchDecision {
  const active = new Set(sync.activeClients);
  const agreed = [...new Set(sync.agreed)].filter((c) => active.has(c));
  const target = rule.strategy === 'C4' ? 1 : Math.max(1, active.size);
  const ready = pool.length > 0 && agreed.length >= target;
  const who = rule.strategy === 'C4' ? 'any active client' : 'all active clients';
  const needed = rule.strategy === 'C4' ? 1 : active.size;
  const detail = `${agreed.length}/${needed} agreed (${who}); ${pool.length} episode(s) pooled`;
  return {
    progress: {
      strategy: rule.strategy,
      ready,
      current: Math.min(agreed.length, target),
      target,
      unit: 'clients',
      detail,
    },
    selected: ready ? ids(pool) : [],
    drop: [],
  };
}

export function decideBatch(pool: readonly PoolItem[], rule: BatchRule, sync: SyncView): BatchDecision {
  switch (rule.strategy) {
    case 'C1': {
      const ready = pool.length >= rule.batch;
      const current = Math.min(pool.length, rule.batch);
      return {
        progress: {
          strategy: 'C1',
          ready,
          current,
          target: rule.batch,
          unit: 'episodes',
          detail: `${current}/${rule.batch} finished episodes`,
        },
        selected: ready ? ids(pool.slice(0, rule.batch)) : [],
        drop: [],
      };
    }
    case 'C2':
      return groupDecision(pool, rule, false);
    case 'C3':
      return groupDecision(pool, rule, true);
    case 'C4':
    case 'C5':
      return syncDecision(pool, rule, sync);
  }
}

/** How many weight versions behind `current` the oldest call of an episode was sampled. */
export const staleness = (oldestWeightVersion: number, current: number): number =>
  Math.max(0, current - oldestWeightVersion);

/** The training-time settings of the staleness bound (options: max-staleness, staleness-bound, async). */
export interface StalenessRule {
  /** --async: the staleness bound K also holds at training time. */
  async: boolean;
  stalenessBound: number;
  maxStaleness: number;
}

/**
 * The most versions the oldest trained token of an episode may lag the weights an update starts from:
 * --max-staleness always (the backstop), and with --async also the staleness bound K (the smaller wins).
 */
export const trainingBound = (r: StalenessRule): number =>
  r.async ? Math.min(r.stalenessBound, r.maxStaleness) : r.maxStaleness;
