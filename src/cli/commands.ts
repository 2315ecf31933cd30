// The `agentjet` sub-commands: one table of name → one-line summary, help text and runner. The
// entry point (main.ts) dispatches through it and `npm run docs` renders docs/reference/cli.md from it.
import { z } from 'zod';
import { campaignHelp } from './campaign-help';
import { demoHelp, DemoOptionsSchema, runDemo } from './demo';
import { parseFlags } from './flags';
import { runRuns, runsHelp } from './runs';
import { taskHelp } from './task-help';
import { regressHelp } from './regress';
import { rewardTryHelp } from './reward-try';
import { rewardsHelp, runLabels, runRewardModel } from './rewards';
import { parseExample, runTrain } from './train';
import { trainHelp, TrainOptionsSchema } from './train-options';
import { parseUiArgs, runUi, uiHelp } from './ui';
import { runWorker, workerHelp, WorkerOptionsSchema } from './worker';
import { replicaHelp, ReplicaOptionsSchema, runReplica } from './replica';

export const usage = `usage: agentjet <command> [options]

commands:
${demoHelp}
${workerHelp}
${replicaHelp}
${trainHelp}
${uiHelp}
${runsHelp}
${campaignHelp}
${taskHelp}
${rewardsHelp}
${rewardTryHelp}
${regressHelp}
  agentjet help            this text

benchmarks run with \`npm run bench -- <name>\` (engine, merge, server, warmstart, reward-model, …).`;

export const wantsHelp = (args: readonly string[]): boolean => args.includes('--help') || args.includes('-h');

/** Parses flags with a command's schema; a problem is reported with the command's help. */
function parsed<T>(schema: z.ZodType<T>, flags: readonly string[], help: string): T {
  const r = schema.safeParse(parseFlags([...flags]));
  if (!r.success) throw new Error(`${z.prettifyError(r.error)}\n\n${help}`);
  return r.data;
}

export interface Command {
  /** One line: what the command is for (the CLI reference's index). */
  summary: string;
  help: string;
  /** Whether the arguments ask for the help text (default: --help or -h among them). */
  helpWanted?: (args: readonly string[]) => boolean;
  run: (args: string[], command: string) => Promise<void>;
}

export const COMMANDS: Record<string, Command> = {
  ui: {
    summary: 'the workbench in a browser (UI + WebSocket bridge); --connect-local starts a local run',
    help: uiHelp,
    run: (args) => runUi(parseUiArgs(args)),
  },
  worker: {
    summary: 'the swarm server: OpenAI-compatible API, episodes, training (on a GPU box or locally)',
    help: workerHelp,
    run: (args) => runWorker(parsed(WorkerOptionsSchema, args, workerHelp)),
  },
  replica: {
    summary: 'rollout replicas on this host for a worker on another (a second box adds generation)',
    help: replicaHelp,
    run: (args) => runReplica(parsed(ReplicaOptionsSchema, args, replicaHelp)),
  },
  train: {
    summary: 'headless training: a local worker with the built-in model and N example clients',
    help: trainHelp,
    run: async ([example, ...flags]) => {
      await runTrain(parseExample(example), parsed(TrainOptionsSchema, flags, trainHelp));
      // Stray handles (sockets of stopped clients) must not keep a finished run alive.
      process.exit(0);
    },
  },
  demo: {
    summary: 'single-process GRPO demo: held-out success, a few training steps, held-out success again',
    help: demoHelp,
    run: (args) => runDemo(parsed(DemoOptionsSchema, args, demoHelp)),
  },
  campaign: {
    summary: 'run (or resume) a campaign of training runs planned by Optuna; show its status',
    help: campaignHelp,
    run: async (args) => {
      // Loaded on demand: the campaign and task code (Optuna client, TypeScript checker) must not slow other commands.
      const { runCampaignCommand } = await import('./campaign');
      const result = await runCampaignCommand(args);
      // Stray handles (sockets of stopped clients) must not keep a finished campaign alive.
      process.exit(result && result.state === 'failed' ? 1 : 0);
    },
  },
  task: {
    summary: 'vibe training: an LLM writes a task folder (task new); check a task folder (task check)',
    help: taskHelp,
    helpWanted: (args) => args.length === 0 || wantsHelp(args),
    run: async (args) => {
      const { runTaskCommand } = await import('./task');
      process.exit(await runTaskCommand(args));
    },
  },
  runs: {
    summary: "the workbench's stored runs: list them, export one as CSV, JSONL and TensorBoard files",
    help: runsHelp,
    run: async (args) => runRuns(args),
  },
  labels: {
    summary: "a run's episode labels: import, export, list",
    help: rewardsHelp,
    helpWanted: (args) => args[0] === undefined || wantsHelp(args.slice(0, 1)),
    run: ([sub, ...flags]) => runLabels(sub!, flags),
  },
  reward: {
    summary: "try edited reward code on a run's recorded episodes (reward try): a JSON verdict",
    help: rewardTryHelp,
    helpWanted: (args) => args[0] !== 'try' || wantsHelp(args),
    run: async ([, ...flags]) => {
      const { runRewardTry } = await import('./reward-try');
      process.exit(await runRewardTry(flags));
    },
  },
  regress: {
    summary: 'the regression board: benchmarks at each commit in a scratch worktree (run), flagged table (show)',
    help: regressHelp,
    helpWanted: (args) => (args[0] !== 'run' && args[0] !== 'show') || wantsHelp(args),
    run: async (args) => {
      const { runRegress } = await import('./regress');
      process.exit(await runRegress(args));
    },
  },
  'reward-model': {
    summary: "train a reward model on a run's labels, or list them",
    help: rewardsHelp,
    helpWanted: (args) => args[0] === undefined || wantsHelp(args.slice(0, 1)),
    run: ([sub, ...flags]) => runRewardModel(sub!, flags),
  },
};
