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

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(demoHelp);
        return;
      }
      const parsed = DemoOptionsSchema.safeParse(parseFlags(rest));
      if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n\n${demoHelp}`);
      await runDemo(parsed.data);
      return;
    }
    case 'worker': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(workerHelp);
        return;
      }
      const parsed = WorkerOptionsSchema.safeParse(parseFlags(rest));
      if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n\n${workerHelp}`);
      await runWorker(parsed.data);
      return;
    }
    case 'train': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(trainHelp);
        return;
      }
      const [example, ...flags] = rest;
      const parsed = TrainOptionsSchema.safeParse(parseFlags(flags));
      if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n\n${trainHelp}`);
      await runTrain(parseExample(example), parsed.data);
      // Stray handles (sockets of stopped clients) must not keep a finished run alive.
      process.exit(0);
      return;
    }
    case 'campaign': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(campaignHelp);
        return;
      }
      // Loaded on demand: the campaign and task code (Optuna client, TypeScript checker) must not slow other commands.
      const { runCampaignCommand } = await import('./campaign');
      const result = await runCampaignCommand(rest);
      // Stray handles (sockets of stopped clients) must not keep a finished campaign alive.
      process.exit(result && result.state === 'failed' ? 1 : 0);
      return;
    }
    case 'task': {
      if (rest.length === 0 || rest.includes('--help') || rest.includes('-h')) {
        console.log(taskHelp);
        return;
      }
      const { runTaskCommand } = await import('./task');
      process.exit(await runTaskCommand(rest));
      return;
    }
    case 'ui': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(uiHelp);
        return;
      }
      await runUi(parseUiArgs(rest));
      return;
    }
    case 'runs': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(runsHelp);
        return;
      }
      runRuns(rest);
      return;
    }
    case 'labels':
    case 'reward-model': {
      const [sub, ...flags] = rest;
      if (sub === undefined || sub === '--help' || sub === '-h') {
        console.log(rewardsHelp);
        return;
      }
      await (command === 'labels' ? runLabels(sub, flags) : runRewardModel(sub, flags));
      return;
    }
    case undefined:
    case 'help':
    case '--help':
      console.log(usage);
      return;
    default:
      throw new Error(`unknown command: ${command}\n\n${usage}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
