// The `agentjet` command line: dispatches sub-commands (the table in commands.ts); each validates its own options.
import { COMMANDS, usage, wantsHelp } from './commands';

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
