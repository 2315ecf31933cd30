// The `agentjet` command line: dispatches sub-commands; each validates its own options.
import { z } from 'zod';
import { demoHelp, DemoOptionsSchema, runDemo } from './demo';
import { parseFlags } from './flags';
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
${rewardsHelp}
  agentjet help            this text

benchmarks run with \`npm run bench -- <name>\` (engine, merge, server, warmstart, reward-model, …).`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo': {
      const parsed = DemoOptionsSchema.strict().safeParse(parseFlags(rest));
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
    case 'ui': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(uiHelp);
        return;
      }
      await runUi(parseUiArgs(rest));
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
