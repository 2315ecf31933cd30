// `reward try` (docs/inner-loop.md): the edited reward code over the last N ended train episodes
// of a run in the store (optionally of one task or code version), in a child process (runner.ts),
// compared with the rewards they were trained with (verdict.ts). Each episode's conversation is
// its last call's messages plus the reply; its task is the dataset row with the episode's task id
// (data/train.jsonl and data/eval.jsonl beside the reward file, or the files given).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Store } from '../store/index';
import { runReward, type RunRewardOptions } from './runner';
import type { RewardTryResult } from '../../shared/inner-loop';
import { rewardVerdict, type TriedEpisode } from './verdict';

export type { RewardTryResult };

export interface RewardTryOptions extends Omit<RunRewardOptions, 'file'> {
  store: Store;
  runId: string;
  file: string;
  /** Episodes to try, newest first (default 200, at most 5000). */
  last?: number;
  /** Substring of the task id. */
  task?: string;
  codeVersion?: string;
  /** JSONL files of task rows with an `id`; default data/{train,eval}.jsonl beside the reward file. */
  taskFiles?: string[];
}

/** Task rows by id from JSONL files (unreadable lines are skipped). */
export function loadTaskRows(files: readonly string[]): Map<string, unknown> {
  const rows = new Map<string, unknown>();
  for (const file of files) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const row: unknown = JSON.parse(line);
        if (row && typeof row === 'object' && 'id' in row && typeof row.id === 'string') rows.set(row.id, row);
      } catch {
        // not a row
      }
    }
  }
  return rows;
}

export async function tryReward(o: RewardTryOptions): Promise<RewardTryResult> {
  const file = resolve(o.file);
  const last = Math.min(Math.max(1, o.last ?? 200), 5000);
  const page = o.store.episodesPage(
    o.runId,
    {
      kind: 'train',
      status: 'ended',
      ...(o.task !== undefined ? { task: o.task } : {}),
      ...(o.codeVersion !== undefined ? { codeVersion: o.codeVersion } : {}),
    },
    0,
    last,
    'newest',
  );
  const rows = loadTaskRows(o.taskFiles ?? ['train', 'eval'].map((s) => join(dirname(file), 'data', `${s}.jsonl`)));
  const tried: TriedEpisode[] = [];
  const items: { task: unknown; messages: unknown[] }[] = [];
  let missingTasks = 0;
  for (const ep of page.rows) {
    const calls = o.store.episodeTimelines(o.runId, ep.episodeId);
    const final = calls.reduce<(typeof calls)[number] | undefined>(
      (a, c) => (a === undefined || c.callIndex > a.callIndex ? c : a),
      undefined,
    );
    if (!final) continue;
    const task = ep.taskId !== null ? rows.get(ep.taskId) : undefined;
    if (task === undefined) missingTasks++;
    tried.push({
      episodeId: ep.episodeId,
      taskId: ep.taskId,
      codeVersion: ep.codeVersion,
      oldReward: ep.reward,
      oldSuccess: ep.success,
    });
    items.push({ task: task ?? { id: ep.taskId }, messages: [...final.messages, final.output] });
  }
  const outcomes = await runReward(items, { ...o, file });
  const lastUpdate = new Set(o.store.lastUpdateEpisodes(o.runId));
  return { runId: o.runId, file, missingTasks, ...rewardVerdict(tried, outcomes, lastUpdate) };
}
