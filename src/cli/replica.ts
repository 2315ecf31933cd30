// `agentjet replica`: this host adds rollout replicas to a worker on another (issue #21 §2; the worker
// runs with --remote-replicas true). It starts R inference-only engines here and attaches each to the
// worker (gpu-worker/src/engine/replicas/replica-host.ts), which routes calls to them and syncs its
// weights to them after every update, until SIGTERM/SIGINT. docs/training-at-scale.md#rollout-replicas-on-other-hosts.
import { existsSync, readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { cpus, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { startReplicaHost } from '../../gpu-worker/src/engine/replicas/replica-host';
import { BUILTIN_MODEL_DIR } from '../../gpu-worker/src/resources';
import { PinnedAgent } from '../node/pinned-tls';
import { FingerprintTextSchema, parseFingerprint } from '../shared/tls-fingerprint';
import { exitOnSignals } from './signals';

export const ReplicaOptionsSchema = z
  .object({
    worker: z.string().regex(/^https?:\/\/\S+$/, 'the worker URL, http(s)://host:port'),
    token: z.string().min(1).optional(),
    replicaToken: z.string().min(1).optional(),
    name: z
      .string()
      .regex(/^[\w.:-]{1,64}$/, 'letters, digits and ._:- (at most 64)')
      .optional(),
    replicas: z.coerce.number().int().min(1).max(64).default(1),
    replicaThreads: z.coerce.number().int().min(1).max(256).optional(),
    devices: z
      .string()
      .regex(/^\d+(,\d+)*$/, 'comma-separated GPU indices, e.g. 0,1')
      .optional(),
    model: z.string().min(1).default('builtin'),
    tlsFingerprint: FingerprintTextSchema.optional(),
    caFile: z.string().min(1).optional(),
  })
  .strict();
export type ReplicaOptions = z.input<typeof ReplicaOptionsSchema>;

export const replicaHelp = [
  'agentjet replica --worker URL [options]   add rollout replicas on this host to a worker elsewhere',
  '  --worker URL               the worker (started with --remote-replicas true), http(s)://host:port',
  "  --replica-token T          the worker's replica token (prefer AGENTJET_REPLICA_TOKEN: flags show in `ps`):",
  '                             good only for attaching replicas, so this host holds no admin powers',
  '  --token T                  or its admin token (AGENTJET_ADMIN_TOKEN), as before',
  '  --replicas R               inference-only engines on this host (default 1)',
  '  --replica-threads N        CPU threads of each (default: the CPU count shared out)',
  "  --devices 0,1              CUDA devices, one per replica round robin (default: the engine's choice)",
  "  --model DIR|builtin        this host's copy of the worker's model folder (default builtin)",
  "  --name NAME                this host's name; replica i attaches as NAME/i (default the host name)",
  "  --tls-fingerprint FP       an https worker's certificate SHA-256 (pinned; what the worker printed)",
  '  --ca-file FILE             or: trust this CA / certificate file for an https worker',
  '  Replicas that lose the worker attach again with backoff; a refusal (token, model) stops them.',
].join('\n');

/** An https worker's trust: a pinned certificate, a CA file, or the system's roots (undefined). */
export function trust(o: { tlsFingerprint?: string | undefined; caFile?: string | undefined }): Agent | undefined {
  if (o.tlsFingerprint !== undefined) return new PinnedAgent(parseFingerprint(o.tlsFingerprint)!);
  if (o.caFile !== undefined) return new Agent({ ca: readFileSync(resolve(o.caFile)), keepAlive: true });
  return undefined;
}

/**
 * The token this host attaches with, and which the user named it: the worker's replica token (least
 * privilege), else its admin token — a flag, else the environment. Only the worker tells them apart.
 */
export function attachToken(
  o: Pick<z.output<typeof ReplicaOptionsSchema>, 'token' | 'replicaToken'>,
  env: NodeJS.ProcessEnv = process.env,
): { token: string; given: 'replica' | 'admin' } {
  if (o.token !== undefined && o.replicaToken !== undefined)
    throw new Error('give --replica-token or --token (the admin token), not both');
  if (o.replicaToken !== undefined) return { token: o.replicaToken, given: 'replica' };
  if (o.token !== undefined) return { token: o.token, given: 'admin' };
  const replica = env['AGENTJET_REPLICA_TOKEN'];
  if (replica) return { token: replica, given: 'replica' };
  const admin = env['AGENTJET_ADMIN_TOKEN'];
  if (admin) return { token: admin, given: 'admin' };
  throw new Error(
    "give the worker's replica token: AGENTJET_REPLICA_TOKEN (or --replica-token); its admin token " +
      '(AGENTJET_ADMIN_TOKEN or --token) also attaches',
  );
}

export async function runReplica(given: ReplicaOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const o = ReplicaOptionsSchema.parse(given);
  const { token, given: kind } = attachToken(o, env);
  if (kind === 'admin')
    console.error(
      "agentjet replica: attaching with the worker's admin token; a replica token (the worker's --replica-token) " +
        'attaches as well and can do nothing else',
    );
  const model = o.model === 'builtin' ? BUILTIN_MODEL_DIR : resolve(o.model);
  if (!existsSync(join(model, 'config.json')))
    throw new Error(`--model ${o.model}: no config.json there (give a copy of the worker's model folder, or builtin)`);
  const name =
    o.name ??
    hostname()
      .replace(/[^\w.:-]/g, '-')
      .slice(0, 64);
  const threads = o.replicaThreads ?? Math.max(1, Math.floor(cpus().length / o.replicas));
  const host = startReplicaHost({
    worker: o.worker,
    token,
    name,
    replicas: o.replicas,
    threads,
    devices: o.devices?.split(','),
    model,
    agent: o.worker.startsWith('https:') ? trust(o) : undefined,
    log: (line) => console.error(line),
  });
  const stopped = exitOnSignals(
    () => host.stop(),
    (signal) => console.log(`${signal}: stopping this host's replicas…`),
  );
  console.log(
    `agentjet replica ${name}: ${o.replicas} rollout replica(s) of ${model} (${threads} thread(s) each) ` +
      `attaching to ${o.worker}`,
  );
  await Promise.race([stopped, host.done]);
  const refused = host.links.filter((l) => l.stopped !== null && l.stopped !== 'stopping');
  if (refused.length > 0) throw new Error(`every replica stopped: ${refused[0]!.stopped}`);
}
