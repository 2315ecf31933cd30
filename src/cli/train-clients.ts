// Starts `agentjet train`'s swarm clients: TypeScript ones through the client runner (compiled with
// esbuild, N processes), the Python one as N plain `python3 client.py` processes with the same
// AGENTJET_* environment. Every client log line goes to one sink.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { ClientRunner, formatCompileMessage } from '../main/runner/index';
import type { ClientKind } from './train-options';

export interface ClientsHandle {
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
}

/** The client file of an example for a client kind. */
export function clientEntry(exampleDir: string, kind: ClientKind): string {
  return join(exampleDir, kind === 'python' ? 'client.py' : `client-${kind}.ts`);
}

export async function startClients(o: StartClientsOptions): Promise<ClientsHandle> {
  const entry = clientEntry(o.exampleDir, o.kind);
  if (!existsSync(entry)) throw new Error(`this example has no ${o.kind} client (${entry})`);
  if (o.kind === 'python') return startPython(entry, o);
  const runner = new ClientRunner({ name: `train-${o.kind}`, serverUrl: o.serverUrl, joinToken: o.joinToken, count: o.count, env: { ...o.env, AGENTJET_GROUP_SIZE: String(o.groupSize) } });
  runner.on('client:log', (l) => o.log(l.clientId, l.line));
  runner.on('client:exited', (e) => e.restartInMs !== null && o.log(e.clientId, `exited (code ${e.code}); restarting in ${e.restartInMs} ms`));
  const started = await runner.start({ entry });
  if (!started.ok) {
    await runner.dispose();
    throw new Error(`client did not compile:\n${started.errors.map(formatCompileMessage).join('\n')}`);
  }
  return { dispose: () => runner.dispose() };
}

function startPython(entry: string, o: StartClientsOptions): ClientsHandle {
  const env: NodeJS.ProcessEnv = { ...process.env, ...o.env, PYTHONUNBUFFERED: '1', AGENTJET_GROUP_SIZE: String(o.groupSize), AGENTJET_SERVER_URL: o.serverUrl, AGENTJET_JOIN_TOKEN: o.joinToken };
  delete env['AGENTJET_ADMIN_TOKEN'];
  const python = process.env['PYTHON'] ?? 'python3';
  const children: { id: string; child: ChildProcess; exited: Promise<void> }[] = [];
  for (let i = 0; i < o.count; i++) {
    const id = `train-python-${i}`;
    const child = spawn(python, [entry], { cwd: dirname(entry), env: { ...env, AGENTJET_CLIENT_ID: id, AGENTJET_CLIENT_INDEX: String(i) }, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream }).on('line', (line) => o.log(id, line));
    const exited = new Promise<void>((r) => child.once('exit', (code, signal) => {
      o.log(id, `exited (code ${code}, signal ${signal})`);
      r();
    }));
    child.on('error', (err) => o.log(id, `could not start ${python}: ${err.message}`));
    children.push({ id, child, exited });
  }
  return {
    dispose: async () => {
      for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
      const timer = setTimeout(() => children.forEach((c) => c.child.exitCode === null && c.child.kill('SIGKILL')), 5000);
      await Promise.all(children.map((c) => c.exited));
      clearTimeout(timer);
    },
  };
}
