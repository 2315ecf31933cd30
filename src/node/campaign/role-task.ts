// How a trial plays a task of several roles (the proposer/solver game, docs/studies.md#two-role-trials):
// its clients (the example's client.ts, every role's worker URL and join token in the environment)
// and its held-out evaluation (rounds on proposer tasks no client trains on, played in this process
// as eval episodes on each role's worker): joint success (a valid question the solver solved) and
// each role's own success (the proposer: a valid question; the solver: the right answer).
import { join } from 'node:path';
import { fetchPolicy } from '../../../resources/examples/fetch-policy';
import { generateProposerTasks } from '../../../resources/examples/proposer-solver/proposal';
import { playRound } from '../../../resources/examples/proposer-solver/round';
import { ROLE_TASKS, roleEnv, type RoleTask } from '../../shared/campaign/roles';
import { SwarmClient } from '../../sdk/index';
import { ClientRunner, formatCompileMessage } from '../runner/index';
import { taskNodePaths } from '../task/task-episodes';

export interface RoleTaskRef {
  kind: 'roles';
  task: RoleTask;
  dir: string;
  entry: string;
  roles: readonly string[];
}

export interface RoleWorkerRef {
  url: string;
  joinToken: string;
}

/** Seed of the held-out proposer tasks (the clients train on seed 1's). */
const EVAL_SEED = 1001;

export function roleTaskRef(task: RoleTask, examplesDir: string): RoleTaskRef {
  const dir = join(examplesDir, task);
  return { kind: 'roles', task, dir, entry: join(dir, 'client.ts'), roles: ROLE_TASKS[task] };
}

/** Every role's worker, or a clear error naming the role without one. */
function workerOf(byRole: Readonly<Record<string, RoleWorkerRef>>, role: string): RoleWorkerRef {
  const w = byRole[role];
  if (!w) throw new Error(`no worker serves the role ${role}`);
  return w;
}

/** The clients of a role task: `count` copies of its client.ts, told each role's worker. */
export async function startRoleClients(
  task: RoleTaskRef,
  byRole: Readonly<Record<string, RoleWorkerRef>>,
  count: number,
  name: string,
  o: {
    repoRoot: string;
    cacheDir: string;
    log: (id: string, line: string) => void;
    onExit: (id: string, code: number | null, signal: string | null) => void;
  },
): Promise<{ dispose(): Promise<void> }> {
  const env: Record<string, string> = {};
  for (const role of task.roles) {
    const w = workerOf(byRole, role);
    env[roleEnv(role, 'URL')] = w.url;
    env[roleEnv(role, 'JOIN_TOKEN')] = w.joinToken;
  }
  const first = workerOf(byRole, task.roles[0]!);
  const runner = new ClientRunner({
    name,
    serverUrl: first.url,
    joinToken: first.joinToken,
    count,
    cacheDir: o.cacheDir,
    nodePaths: taskNodePaths(o.repoRoot),
    env,
  });
  runner.on('client:log', (l) => o.log(l.clientId, l.line));
  runner.on('client:exited', (e) => o.onExit(e.clientId, e.code, e.signal));
  const started = await runner.start({ entry: task.entry });
  if (!started.ok) {
    await runner.dispose();
    throw new Error(`${task.entry} did not compile:\n${started.errors.map(formatCompileMessage).join('\n')}`);
  }
  return { dispose: () => runner.dispose() };
}

export interface RoleEvalFigures {
  episodes: number;
  /** Joint success: a valid question that the solver then solved. */
  successRate: number;
  /** The proposer's reward (0, 0.5 or 1) averaged. */
  rewardMean: number;
  failed: number;
  /** Each role's own success rate: proposer = a valid question, solver = the right answer. */
  roles: Record<string, number>;
}

/** `rounds` held-out rounds, 4 at a time, as eval episodes on each role's worker; a failed round counts as failed. */
export async function playRoleEval(
  byRole: Readonly<Record<string, RoleWorkerRef>>,
  rounds: number,
  clientId: string,
): Promise<RoleEvalFigures> {
  const client = (role: string): SwarmClient => {
    const w = workerOf(byRole, role);
    return new SwarmClient({ url: w.url, joinToken: w.joinToken, clientId: `${clientId}-${role}` });
  };
  const clients = { proposer: client('proposer'), solver: client('solver') };
  const tasks = generateProposerTasks(rounds, EVAL_SEED);
  const tally = { joint: 0, valid: 0, solved: 0, reward: 0, failed: 0 };
  let next = 0;
  const play = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      const r = await playRound(
        clients,
        task,
        ({ baseUrl, apiKey, model, signal }) => fetchPolicy({ baseUrl, apiKey, model, signal }),
        60_000,
        'eval',
      ).catch(() => null);
      if (!r) {
        tally.failed++;
        continue;
      }
      tally.joint += r.proposer.score.success ? 1 : 0;
      tally.valid += r.proposal.ok ? 1 : 0;
      tally.solved += r.solver.score.success ? 1 : 0;
      tally.reward += r.proposer.score.reward;
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, tasks.length) }, play));
  const n = Math.max(1, tasks.length);
  return {
    episodes: tasks.length,
    failed: tally.failed,
    successRate: tally.joint / n,
    rewardMean: tally.reward / n,
    roles: { proposer: tally.valid / n, solver: tally.solved / n },
  };
}
