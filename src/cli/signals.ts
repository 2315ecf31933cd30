// One shutdown path for the long-running commands (`agentjet worker`, `agentjet ui`): the first
// SIGINT/SIGTERM runs `shutdown` and exits 0 (1 if it failed); a second one exits at once (130).
export function exitOnSignals(shutdown: (signal: string) => Promise<void>, announce: (signal: string) => void): Promise<never> {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      console.error(`${signal} again: exiting without waiting`);
      process.exit(130);
    }
    stopping = true;
    announce(signal);
    shutdown(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return new Promise<never>(() => undefined);
}
