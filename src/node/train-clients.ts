// Starts `agentjet train`'s swarm clients through the client runner, the one supervisor of client
// processes: TypeScript ones compiled with esbuild, the Python one as N `python3 client.py`
// processes; both get the AGENTJET_* environment and restarts with backoff. Every client log
// line (the runner's notes included) goes to one sink.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ClientRunner, formatCompileMessage } from './runner/index';

/** The calculator example's client kinds: one per agent framework (TypeScript ones, and Python). */
export const CLIENT_KINDS = ['openai', 'vercel', 'fetch', 'python', 'langchain', 'agents'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];
/** The bundled example tasks (clients, rewards, datasets). */
export const EXAMPLES_DIR = resolve(import.meta.dirname, '../../resources/examples');

export interface ClientsHandle {
  /** The running client processes (a client between a crash and its restart is left out). */
  processes(): { clientId: string; pid: number }[];
  dispose(): Promise<void>;
}

export interface StartClientsOptions {
  exampleDir: string;
  kind: ClientKind;
  count: number;
  serverUrl: string;
  joinToken: string;
  /** Episodes per task each client plays together (the worker's group size). */
  groupSize: number;
  log: (clientId: string, line: string) => void;
  /** Extra environment for every client (e.g. the cocktail's AGENTJET_MIX). */
  env?: Record<string, string>;
  /** Prefix of the client ids (default `train-<kind>`): client i is `<name>-<i>`. */
  name?: string;
  /** A client process exited (before any restart). */
  onExit?: (clientId: string, code: number | null, signal: string | null) => void;
}

/** The client file of an example for a client kind. */
export function clientEntry(exampleDir: string, kind: ClientKind): string {
  return join(exampleDir, kind === 'python' ? 'client.py' : `client-${kind}.ts`);
}

export async function startClients(o: StartClientsOptions): Promise<ClientsHandle> {
  const entry = clientEntry(o.exampleDir, o.kind);
  if (!existsSync(entry)) throw new Error(`this example has no ${o.kind} client (${entry})`);
  if (o.kind === 'python') return startPython(entry, o);
  const runner = new ClientRunner({
    name: o.name ?? `train-${o.kind}`,
    serverUrl: o.serverUrl,
    joinToken: o.joinToken,
    count: o.count,
    env: { ...o.env, AGENTJET_GROUP_SIZE: String(o.groupSize) },
  });
  return supervise(
    runner,
    async () => {
      const started = await runner.start({ entry });
      if (!started.ok)
        throw new Error(`client did not compile:\n${started.errors.map(formatCompileMessage).join('\n')}`);
    },
    o,
  );
}

/** The Python client: N `python3 client.py` processes under the same supervisor as the TypeScript ones. */
async function startPython(entry: string, o: StartClientsOptions): Promise<ClientsHandle> {
  const runner = new ClientRunner({
    name: o.name ?? 'train-python',
    serverUrl: o.serverUrl,
    joinToken: o.joinToken,
    count: o.count,
    env: { ...o.env, PYTHONUNBUFFERED: '1', AGENTJET_GROUP_SIZE: String(o.groupSize) },
  });
  return supervise(
    runner,
    () => runner.startCommand({ command: process.env['PYTHON'] ?? 'python3', args: [entry], cwd: dirname(entry) }),
    o,
  );
}

/** Logs of a runner's clients into the one sink; the handle of its running processes. */
async function supervise(
  runner: ClientRunner,
  start: () => Promise<void>,
  o: StartClientsOptions,
): Promise<ClientsHandle> {
  runner.on('client:log', (l) => o.log(l.clientId, l.line));
  runner.on('client:exited', (e) => {
    o.onExit?.(e.clientId, e.code, e.signal);
    if (e.restartInMs !== null) o.log(e.clientId, `exited (code ${e.code}); restarting in ${e.restartInMs} ms`);
  });
  try {
    await start();
  } catch (err) {
    await runner.dispose();
    throw err;
  }
  return {
    processes: () =>
      runner
        .status()
        .clients.flatMap((c) =>
          c.pid !== null && c.state === 'running' ? [{ clientId: c.clientId, pid: c.pid }] : [],
        ),
    dispose: () => runner.dispose(),
  };
}
