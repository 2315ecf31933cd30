// The `agentjet` command line: dispatches sub-commands; each validates its own options.
import { z } from 'zod';
import { campaignHelp } from './campaign-help';
import { demoHelp, DemoOptionsSchema, runDemo } from './demo';
import { parseFlags } from './flags';
import { runRuns, runsHelp } from './runs';
import { taskHelp } from './task-help';
import { rewardsHelp, runLabels, runRewardModel } from './rewards';
import { parseExample, runTrain } from './train';
import { trainHelp, TrainOptionsSchema } from './train-options';
import { parseUiArgs, runUi, uiHelp } from './ui';
import { runWorker, workerHelp, WorkerOptionsSchema } from './worker';

const usage = `usage: agentjet <command> [options]

commands:
${demoHelp}
${workerHelp}
${trainHelp}
${uiHelp}
${runsHelp}
${campaignHelp}
${taskHelp}
${rewardsHelp}
  agentjet help            this text

benchmarks run with \`npm run bench -- <name>\` (engine, merge, server, warmstart, reward-model, …).`;

const wantsHelp = (args: readonly string[]): boolean => args.includes('--help') || args.includes('-h');

/** Parses flags with a command's schema; a problem is reported with the command's help. */
function parsed<T>(schema: z.ZodType<T>, flags: readonly string[], help: string): T {
  const r = schema.safeParse(parseFlags([...flags]));
  if (!r.success) throw new Error(`${z.prettifyError(r.error)}\n\n${help}`);
  return r.data;
}

interface Command {
  help: string;
  /** Whether the arguments ask for the help text (default: --help or -h among them). */
  helpWanted?: (args: readonly string[]) => boolean;
  run: (args: string[], command: string) => Promise<void>;
}

const COMMANDS: Record<string, Command> = {
  demo: { help: demoHelp, run: (args) => runDemo(parsed(DemoOptionsSchema, args, demoHelp)) },
  worker: { help: workerHelp, run: (args) => runWorker(parsed(WorkerOptionsSchema, args, workerHelp)) },
  train: {
    help: trainHelp,
    run: async ([example, ...flags]) => {
      await runTrain(parseExample(example), parsed(TrainOptionsSchema, flags, trainHelp));
      // Stray handles (sockets of stopped clients) must not keep a finished run alive.
      process.exit(0);
    },
  },
  campaign: {
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
    help: taskHelp,
    helpWanted: (args) => args.length === 0 || wantsHelp(args),
    run: async (args) => {
      const { runTaskCommand } = await import('./task');
      process.exit(await runTaskCommand(args));
    },
  },
  ui: { help: uiHelp, run: (args) => runUi(parseUiArgs(args)) },
  runs: { help: runsHelp, run: async (args) => runRuns(args) },
  labels: {
    help: rewardsHelp,
    helpWanted: (args) => args[0] === undefined || wantsHelp(args.slice(0, 1)),
    run: ([sub, ...flags]) => runLabels(sub!, flags),
  },
  'reward-model': {
    help: rewardsHelp,
    helpWanted: (args) => args[0] === undefined || wantsHelp(args.slice(0, 1)),
    run: ([sub, ...flags]) => runRewardModel(sub!, flags),
  },
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help') {
    console.log(usage);
    return;
  }
  const cmd = COMMANDS[command];
  if (!cmd) throw new Error(`unknown command: ${command}\n\n${usage}`);
  if ((cmd.helpWanted ?? wantsHelp)(rest)) {
    console.log(cmd.help);
    return;
  }
  await cmd.run(rest, command);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
