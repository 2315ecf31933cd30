// Starts `agentjet train`'s swarm clients: TypeScript ones through the client runner (compiled with
// esbuild, N processes), the Python one as N plain `python3 client.py` processes with the same
// AGENTJET_* environment, restarted with backoff when one dies (as the runner does). Every client log
// line goes to one sink.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { attemptAfterCrash, backoffDelayMs, defaultBackoff } from '../main/runner/backoff';
import { ClientRunner, formatCompileMessage } from '../main/runner/index';
import type { ClientKind } from './train-options';

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
  const runner = new ClientRunner({ name: o.name ?? `train-${o.kind}`, serverUrl: o.serverUrl, joinToken: o.joinToken, count: o.count, env: { ...o.env, AGENTJET_GROUP_SIZE: String(o.groupSize) } });
  runner.on('client:log', (l) => o.log(l.clientId, l.line));
  runner.on('client:exited', (e) => {
    o.onExit?.(e.clientId, e.code, e.signal);
    if (e.restartInMs !== null) o.log(e.clientId, `exited (code ${e.code}); restarting in ${e.restartInMs} ms`);
  });
  const started = await runner.start({ entry });
  if (!started.ok) {
    await runner.dispose();
    throw new Error(`client did not compile:\n${started.errors.map(formatCompileMessage).join('\n')}`);
  }
  return {
    processes: () => runner.status().clients.flatMap((c) => (c.pid !== null && c.state === 'running' ? [{ clientId: c.clientId, pid: c.pid }] : [])),
    dispose: () => runner.dispose(),
  };
}

function startPython(entry: string, o: StartClientsOptions): ClientsHandle {
  const env: NodeJS.ProcessEnv = { ...process.env, ...o.env, PYTHONUNBUFFERED: '1', AGENTJET_GROUP_SIZE: String(o.groupSize), AGENTJET_SERVER_URL: o.serverUrl, AGENTJET_JOIN_TOKEN: o.joinToken };
  delete env['AGENTJET_ADMIN_TOKEN'];
  const python = process.env['PYTHON'] ?? 'python3';
  let stopping = false;
  const slots: { id: string; child: ChildProcess | null; exited: Promise<void>; attempt: number; timer: NodeJS.Timeout | null }[] = [];
  const launch = (slot: (typeof slots)[number], index: number): void => {
    const startedAt = Date.now();
    const child = spawn(python, [entry], { cwd: dirname(entry), env: { ...env, AGENTJET_CLIENT_ID: slot.id, AGENTJET_CLIENT_INDEX: String(index) }, stdio: ['ignore', 'pipe', 'pipe'] });
    slot.child = child;
    for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream }).on('line', (line) => o.log(slot.id, line));
    slot.exited = new Promise<void>((r) => child.once('exit', (code, signal) => {
      slot.child = null;
      if (!stopping) o.onExit?.(slot.id, code, signal);
      if (stopping || code === 0) o.log(slot.id, `exited (code ${code}, signal ${signal})`);
      else {
        // A crash: restart with backoff, like the runner does for the TypeScript clients.
        const attempt = attemptAfterCrash(slot.attempt, Date.now() - startedAt, defaultBackoff);
        const ms = backoffDelayMs(attempt, defaultBackoff);
        slot.attempt = attempt + 1;
        o.log(slot.id, `exited (code ${code}, signal ${signal}); restarting in ${ms} ms`);
        slot.timer = setTimeout(() => {
          slot.timer = null;
          if (!stopping) launch(slot, index);
        }, ms);
      }
      r();
    }));
    child.on('error', (err) => o.log(slot.id, `could not start ${python}: ${err.message}`));
  };
  for (let i = 0; i < o.count; i++) {
    const slot = { id: `${o.name ?? 'train-python'}-${i}`, child: null, exited: Promise.resolve(), attempt: 0, timer: null };
    slots.push(slot);
    launch(slot, i);
  }
  return {
    processes: () => slots.flatMap((s) => (s.child?.pid !== undefined && s.child.exitCode === null && s.child.signalCode === null ? [{ clientId: s.id, pid: s.child.pid }] : [])),
    dispose: async () => {
      stopping = true;
      for (const s of slots) {
        if (s.timer) clearTimeout(s.timer);
        if (s.child && s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
      }
      const timer = setTimeout(() => slots.forEach((s) => s.child?.exitCode === null && s.child.kill('SIGKILL')), 5000);
      await Promise.all(slots.map((s) => s.exited));
      clearTimeout(timer);
    },
  };
}
