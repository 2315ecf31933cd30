// The `agentjet` command line: dispatches sub-commands; each validates its own options.
import { z } from 'zod';
import { demoHelp, DemoOptionsSchema, runDemo } from './demo';
import { parseFlags } from './flags';
import { runRuns, runsHelp } from './runs';
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
  agentjet help            this text

benchmarks run with \`npm run bench -- <name>\` (engine, merge, server, warmstart).`;

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
