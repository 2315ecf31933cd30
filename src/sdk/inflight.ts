// The episodes this process is running, so a signal handler can abort them before exit, and the
// opt-in SIGTERM/SIGINT handlers (the client runner sends SIGTERM on hot-swap).
export interface LiveEpisode {
  readonly episodeId: string;
  /** Fires the episode's AbortSignal and aborts it on the server (once; later calls share the first). */
  abort(reason: string): Promise<void>;
}

const live = new Set<LiveEpisode>();

export function trackEpisode(e: LiveEpisode): () => void {
  live.add(e);
  return () => void live.delete(e);
}

export function inFlightEpisodes(): readonly LiveEpisode[] {
  return [...live];
}

/** Aborts every in-flight episode (best effort), waiting at most `timeoutMs`. */
export async function abortInFlight(reason: string, timeoutMs = 3000): Promise<number> {
  const all = [...live];
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)));
  await Promise.race([Promise.allSettled(all.map((e) => e.abort(reason))), cap]);
  clearTimeout(timer);
  return all.length;
}

export interface SignalHandlerOptions {
  signals?: NodeJS.Signals[];
  /** How long to wait for the aborts before exiting (default 3 s). */
  timeoutMs?: number;
  /** Exit after aborting (default true; exit code 128 + signal number). */
  exit?: boolean;
  log?: (line: string) => void;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** On SIGTERM/SIGINT: abort in-flight episodes on the server, then exit. Returns an uninstaller. */
export function installSignalHandlers(o: SignalHandlerOptions = {}): () => void {
  const signals = o.signals ?? ['SIGTERM', 'SIGINT'];
  let handling = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (handling) return;
    handling = true;
    const n = live.size;
    if (n > 0) o.log?.(`${signal}: aborting ${n} in-flight episode(s)`);
    void abortInFlight(`client received ${signal}`, o.timeoutMs ?? 3000).finally(() => {
      if (o.exit ?? true) process.exit(128 + (SIGNAL_NUMBERS[signal] ?? 0));
      handling = false;
    });
  };
  for (const s of signals) process.on(s, handler);
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}
