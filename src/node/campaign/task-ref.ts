// What a campaign's `base.task` names, and how a trial plays it: a bundled example (its clients
// through `agentjet train`'s starter, its held-out eval through `agentjet train`'s eval player) or
// a task folder (client.ts run by the client runner in train mode, and once in eval mode per
// evaluation point, src/sdk/task.ts).
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runEval } from '../eval';
import { startClients } from '../train-clients';
import { exampleTasks, TRAIN_EXAMPLES, type TaskKey, type TrainExample } from '../train-tasks';
import type { TrialSetup } from '../../shared/campaign/spec';
import { ClientRunner } from '../runner/index';
import { isRoleTask } from '../../shared/campaign/roles';
import { roleTaskRef, type RoleTaskRef } from './role-task';
import { evalFigures, playTaskEpisodes, taskNodePaths } from '../task/task-episodes';

/** A task played by one role: one worker, any number of clients. */
export type OneRoleTaskRef =
  | { kind: 'bundled'; example: TrainExample; dir: string; keys: readonly TaskKey[] }
  | { kind: 'folder'; dir: string; entry: string };
/** …or by several (role-task.ts): a worker per role, or one shared. */
export type TaskRef = OneRoleTaskRef | RoleTaskRef;

export interface EvalFigures {
  episodes: number;
  successRate: number;
  rewardMean: number;
  failed: number;
}

export interface TrialWorkerRef {
  url: string;
  adminToken: string;
  joinToken: string;
}

export interface RunningClients {
  dispose(): Promise<void>;
}

/**
 * `calculator-agent` / `guess-number` / `cocktail`, `proposer-solver` (several roles), or a folder (relative to
 * `baseDir`) holding client.ts.
 */
export function resolveTask(task: string, baseDir: string, examplesDir: string): TaskRef {
  if (isRoleTask(task)) return roleTaskRef(task, examplesDir);
  const bundled = TRAIN_EXAMPLES.find((e) => e === task);
  if (bundled)
    return { kind: 'bundled', example: bundled, dir: join(examplesDir, bundled), keys: exampleTasks(bundled) };
  const dir = resolve(baseDir, task);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new Error(
      `base.task ${JSON.stringify(task)}: neither a bundled example (${TRAIN_EXAMPLES.join(', ')}) nor a folder ` +
        `(${dir})`,
    );
  const entry = join(dir, 'client.ts');
  if (!existsSync(entry)) throw new Error(`base.task: ${dir} holds no client.ts`);
  return { kind: 'folder', dir, entry };
}

export interface TaskPlayOptions {
  repoRoot: string;
  cacheDir: string;
  log: (clientId: string, line: string) => void;
  onExit: (clientId: string, code: number | null, signal: string | null) => void;
}

/** Starts the trial's training clients. */
export async function startTrialClients(
  task: OneRoleTaskRef,
  setup: TrialSetup,
  w: TrialWorkerRef,
  groupSize: number,
  name: string,
  o: TaskPlayOptions,
): Promise<RunningClients> {
  if (task.kind === 'bundled') {
    return startClients({
      exampleDir: task.dir,
      kind: task.example === 'calculator-agent' ? setup.client : 'openai',
      count: setup.clients,
      serverUrl: w.url,
      joinToken: w.joinToken,
      groupSize,
      name,
      log: o.log,
      onExit: o.onExit,
      env: setup.mix !== undefined ? { AGENTJET_MIX: String(setup.mix) } : {},
    });
  }
  const runner = new ClientRunner({
    name,
    serverUrl: w.url,
    joinToken: w.joinToken,
    count: setup.clients,
    cacheDir: o.cacheDir,
    nodePaths: taskNodePaths(o.repoRoot),
    env: { AGENTJET_GROUP_SIZE: String(groupSize) },
  });
  runner.on('client:log', (l) => o.log(l.clientId, l.line));
  runner.on('client:exited', (e) => o.onExit(e.clientId, e.code, e.signal));
  const started = await runner.start({ entry: task.entry });
  if (!started.ok) {
    await runner.dispose();
    throw new Error(
      'client.ts did not ' +
        `compile:\n${started.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`).join('\n')}`,
    );
  }
  return { dispose: () => runner.dispose() };
}

/** One evaluation point: `episodes` held-out tasks (per task of a cocktail) played as eval episodes. */
export async function playEval(
  task: OneRoleTaskRef,
  w: TrialWorkerRef,
  episodes: number,
  clientId: string,
  o: Pick<TaskPlayOptions, 'repoRoot' | 'cacheDir'>,
): Promise<EvalFigures> {
  if (task.kind === 'bundled') {
    const parts = [];
    for (const key of task.keys) parts.push(await runEval(w.url, w.joinToken, episodes, key, 4));
    const n = parts.reduce((s, p) => s + p.episodes, 0);
    return {
      episodes: n,
      failed: parts.reduce((s, p) => s + p.failed, 0),
      successRate: parts.reduce((s, p) => s + p.successRate * p.episodes, 0) / Math.max(1, n),
      rewardMean: parts.reduce((s, p) => s + p.rewardMean * p.episodes, 0) / Math.max(1, n),
    };
  }
  const played = await playTaskEpisodes({
    entry: task.entry,
    worker: w,
    episodes,
    clientId,
    nodePaths: taskNodePaths(o.repoRoot),
    cacheDir: o.cacheDir,
    concurrency: 4,
  });
  if (played.compileErrors.length > 0)
    throw new Error(`client.ts did not compile for the eval: ${played.compileErrors[0]?.message ?? ''}`);
  return evalFigures(played, episodes);
}
