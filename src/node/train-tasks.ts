// Per-task figures for `agentjet train`: a queue of ended train episodes from which each step takes
// its episode count, oldest first, and their formatting (which tasks an example trains on and how a
// task id names its task are in src/node/tasks.ts, which the workbench's eval uses too).
import { taskOf, type TaskKey } from './tasks';

export { exampleTasks, TASK_KEYS, taskOf, TRAIN_EXAMPLES, type TaskKey, type TrainExample } from './tasks';

export interface TaskFigures {
  episodes: number;
  /** null when no episode of the task ended. */
  rewardMean: number | null;
  /** Among episodes that reported success; null when none did. */
  successRate: number | null;
}

export type TaskBreakdown = Partial<Record<TaskKey, TaskFigures>>;

interface Ended {
  key: TaskKey;
  reward: number;
  success: boolean | undefined;
}

/** Ended episodes in arrival order; `take` sums the oldest `count` (default all) per task and drops them. */
export class TaskTally {
  private queue: Ended[] = [];

  add(taskId: string, reward: number, success: boolean | undefined): void {
    const key = taskOf(taskId);
    if (key) this.queue.push({ key, reward, success });
  }

  get size(): number {
    return this.queue.length;
  }

  take(keys: readonly TaskKey[], count = this.queue.length): TaskBreakdown {
    const taken = this.queue.splice(0, Math.max(0, count));
    const out: TaskBreakdown = {};
    for (const k of keys) {
      const mine = taken.filter((e) => e.key === k);
      const judged = mine.filter((e) => e.success !== undefined);
      out[k] = {
        episodes: mine.length,
        rewardMean: mine.length > 0 ? mine.reduce((s, e) => s + e.reward, 0) / mine.length : null,
        successRate: judged.length > 0 ? judged.filter((e) => e.success === true).length / judged.length : null,
      };
    }
    return out;
  }
}

const f3 = (x: number | null): string => (x === null ? '-' : x.toFixed(3));
const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);

/** `calc reward 0.500 success 50.0% (4) | guess -`: '-' for a task with no episode. */
export function formatTasks(b: TaskBreakdown, keys: readonly TaskKey[]): string {
  return keys
    .map((k) => {
      const t = b[k];
      return !t || t.episodes === 0
        ? `${k} -`
        : `${k} reward ${f3(t.rewardMean)} success ${pct(t.successRate)} (${t.episodes})`;
    })
    .join(' | ');
}

/** Summary-table cells of one step: reward and success per task. */
export function taskCells(b: TaskBreakdown, keys: readonly TaskKey[]): string[] {
  return keys.flatMap((k) => [f3(b[k]?.rewardMean ?? null), pct(b[k]?.successRate ?? null)]);
}

export const taskHeaders = (keys: readonly TaskKey[]): string[] => keys.flatMap((k) => [`${k} reward`, `${k} success`]);
