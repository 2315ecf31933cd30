// One shutdown path for the long-running commands (`agentjet worker`, `agentjet ui`): the first
// SIGINT/SIGTERM runs `shutdown` and exits 0 (1 if it failed); a second one exits at once (130).
// Commands that stop cleanly and return (campaigns, studies) use `whileStoppable` instead.
//
// The same shutdown runs when the process finds itself orphaned — its parent exited and it was
// re-parented. That is what happens under `npx agentjet …` / `npm run …`: npm does not pass
// SIGTERM on to the command, it just exits, so without this the worker would run on, holding its
// port and GPU, never checkpointed. Started directly (`node bin/agentjet.mjs worker`, the
// documented way), under a service manager (parent pid 1) or by the workbench (which watches the
// parent itself, AGENTJET_PARENT_PID), nothing changes. AGENTJET_WATCH_PARENT=0 turns it off
// (e.g. to keep a worker started with `nohup … &` running after its shell exits); =1 forces it.

export interface SignalOptions {
  /** Default: from AGENTJET_WATCH_PARENT, AGENTJET_PARENT_PID and the parent pid (see above). */
  watchParent?: boolean;
  /** How often the parent is checked (default 1 s). */
  parentPollMs?: number;
}

/** Whether to shut down when the parent exits. */
export function shouldWatchParent(env: NodeJS.ProcessEnv, ppid: number): boolean {
  const forced = env['AGENTJET_WATCH_PARENT'];
  if (forced === '0' || forced === 'false') return false;
  if (forced === '1' || forced === 'true') return true;
  // The workbench's preloaded watchdog already handles it; pid 1 (init, tini, systemd) is not a
  // parent that exits.
  return !env['AGENTJET_PARENT_PID'] && ppid > 1;
}

export function exitOnSignals(
  shutdown: (signal: string) => Promise<void>,
  announce: (signal: string) => void,
  opts: SignalOptions = {},
): Promise<never> {
  let stopping = false;
  const stop = (signal: string, repeatable: boolean): void => {
    if (stopping) {
      if (!repeatable) return;
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
  process.on('SIGTERM', () => stop('SIGTERM', true));
  process.on('SIGINT', () => stop('SIGINT', true));
  const parent = process.ppid;
  if (opts.watchParent ?? shouldWatchParent(process.env, parent)) {
    const timer = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(timer);
      console.error(
        `the parent process (${parent}) exited: shutting down as on SIGTERM (AGENTJET_WATCH_PARENT=0 keeps running)`,
      );
      stop('parent exited', false);
    }, opts.parentPollMs ?? 1000);
    timer.unref();
  }
  return new Promise<never>(() => undefined);
}

/**
 * Runs `work` with SIGINT and SIGTERM calling `stop` (the commands that stop cleanly and return:
 * campaigns, studies); the handlers are gone once `work` settles.
 */
export async function whileStoppable<T>(stop: () => void, work: () => Promise<T>): Promise<T> {
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await work();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
