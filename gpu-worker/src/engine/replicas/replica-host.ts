// `agentjet replica` (issue #21 §2: a second box adds rollout replicas). For each of its replicas this
// host dials the worker's attach endpoint (src/shared/replica-attach.ts: replica or admin token, the model's
// identity files; through the caller's agent — a pinned certificate — when the worker serves TLS), then
// starts a local engine process and carries frames both ways: the worker's requests to the engine's
// stdin — only the methods a replica serves, and `load` with this host's model folder, threads and
// device — and the engine's answers and deltas back, one message each. The socket ending ends the
// engine and the engine ending ends the socket (the worker counts the replica dead either way); then it
// dials again with backoff, with a fresh engine that the worker loads and syncs to the current weights.
// A refusal (wrong token, another model, an attach under the same name from elsewhere) or a model that
// does not load here stops that replica with the reason.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Agent, IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { z } from 'zod';
import { attemptAfterCrash, backoffDelay, type BackoffPolicy } from '../../../../src/shared/backoff';
import {
  MODEL_FILES_HEADER,
  REPLICA_MAX_FRAME_BYTES,
  REPLICA_METHODS,
  ReplicaClose,
} from '../../../../src/shared/replica-attach';
import { ErrorBodySchema } from '../../../../src/shared/swarm-protocol';
import { workerRoutes } from '../../../../src/shared/worker-routes';
import { engineArgv } from '../engine-process';
import { ENGINE_DIR, findPython } from '../find-python';
import { encodeFrame, FrameDecoder } from '../frames';
import { formatModelFiles, modelFiles } from './model-files';
import { closeReason, keepAlive, messageText } from './socket-engine';

export interface ReplicaHostOptions {
  /** The worker's URL (http:// or https://). */
  worker: string;
  /** Its replica token (good only for attaching; the least a host needs), or its admin token. */
  token: string;
  /** This host's name: replica i attaches as `<name>/<i>` (a restarted host takes its replicas back). */
  name: string;
  replicas: number;
  /** CPU threads of each replica's engine. */
  threads: number;
  /** CUDA devices, one per replica round robin (absent: the engine's choice, CPU without CUDA). */
  devices?: string[] | undefined;
  /** The model folder on this host (a copy of the one the worker loads). */
  model: string;
  /** For an https worker: the agent that checks its certificate (a pinned one, or a CA). */
  agent?: Agent | undefined;
  python?: string;
  env?: NodeJS.ProcessEnv;
  log: (line: string) => void;
  backoff?: BackoffPolicy;
}

export type LinkState = 'connecting' | 'attached' | 'stopped';

export interface ReplicaHost {
  /** Each replica's state, its attaches so far, and why it stopped. */
  readonly links: readonly { state: LinkState; attaches: number; stopped: string | null }[];
  /** Resolves once every replica has stopped (refused, or `stop`). */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

const RequestSchema = z.object({ id: z.number().int(), method: z.string(), params: z.record(z.string(), z.unknown()) });
const AnswerSchema = z.object({ id: z.number().int(), error: z.object({ message: z.string() }).optional() });
const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 10_000, resetAfterMs: 30_000 };

/** A `load` from the worker, made this host's: its model folder, threads and device. */
export function localLoad(
  params: Record<string, unknown>,
  o: Pick<ReplicaHostOptions, 'model' | 'threads' | 'devices'>,
) {
  return { ...params, path: o.model, threads: o.threads, device: o.devices ? 'cuda' : 'auto' };
}

/** A TLS failure that retrying cannot mend: an unknown or self-signed certificate, or not the pinned one. */
function untrusted(err: Error): boolean {
  const code = 'code' in err && typeof err.code === 'string' ? err.code : '';
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|certificate_changed/i.test(code);
}

/** Reads at most 64 KiB of a refusal's body and gives its message. */
function refusalMessage(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (body.length < 65_536) body += chunk;
    });
    const done = (): void => {
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* not JSON: not a worker's answer */
      }
      const parsed = ErrorBodySchema.safeParse(json);
      resolve(parsed.success ? parsed.data.error.message : `HTTP ${res.statusCode} (not a worker's answer)`);
    };
    res.on('end', done);
    res.on('error', done);
  });
}

class ReplicaLink {
  state: LinkState = 'connecting';
  attaches = 0;
  stopped: string | null = null;
  private ws: WebSocket | null = null;
  private engine: ChildProcessWithoutNullStreams | null = null;
  private attempt = 0;
  private upSince = 0;
  /** Ids of the worker's `load` calls on the current engine (a failed one is logged here too). */
  private readonly loads = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private finish: () => void = () => undefined;
  readonly done = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly i: number,
    private readonly o: ReplicaHostOptions,
    private readonly files: string,
  ) {}

  private get name(): string {
    return `${this.o.name}/${this.i}`;
  }

  private log(line: string): void {
    this.o.log(`replica ${this.name}: ${line}`);
  }

  dial(): void {
    if (this.stopped !== null) return;
    this.state = 'connecting';
    const base = this.o.worker.replace(/\/+$/, '').replace(/^http/, 'ws');
    const ws = new WebSocket(`${base}${workerRoutes.replicaAttach.path}?name=${encodeURIComponent(this.name)}`, {
      headers: { authorization: `Bearer ${this.o.token}`, [MODEL_FILES_HEADER]: this.files },
      maxPayload: REPLICA_MAX_FRAME_BYTES,
      handshakeTimeout: 30_000,
      ...(this.o.agent ? { agent: this.o.agent } : {}),
    });
    this.ws = ws;
    ws.on('unexpected-response', (_req, res) => {
      void refusalMessage(res).then((message) => {
        if (this.ws !== ws) return;
        this.ws = null;
        ws.terminate();
        const status = res.statusCode ?? 0;
        if (status >= 400 && status < 500 && status !== 429) return this.stop(`refused (${status}): ${message}`);
        this.log(`the worker answered ${status}: ${message}; trying again`);
        this.again();
      });
    });
    ws.on('open', () => this.attached(ws));
    ws.on('error', (err) => {
      if (this.ws !== ws || ws.readyState === WebSocket.OPEN) return;
      if (!untrusted(err)) return this.log(`cannot reach the worker: ${err.message}`);
      this.stop(`the worker's certificate is not trusted (${err.message}): give --tls-fingerprint or --ca-file`);
    });
    ws.on('close', (code, reason) => this.closed(ws, code, reason.toString('utf8')));
  }

  private attached(ws: WebSocket): void {
    this.state = 'attached';
    this.attaches += 1;
    this.upSince = Date.now();
    this.log(`attached to ${this.o.worker}; starting its engine`);
    this.loads.clear();
    const stopPings = keepAlive(ws, 15_000);
    ws.once('close', stopPings);
    const engine = this.spawnEngine(ws);
    ws.on('message', (data) => {
      let frame: unknown;
      try {
        frame = JSON.parse(messageText(data));
      } catch {
        frame = null;
      }
      const req = RequestSchema.safeParse(frame);
      if (!req.success) return ws.close(ReplicaClose.badFrame, 'a message that is not an engine request');
      const { id, method, params } = req.data;
      if (!REPLICA_METHODS.includes(method)) {
        const message = `${method} is not for rollout replicas (this host serves ${REPLICA_METHODS.join(', ')})`;
        return ws.send(JSON.stringify({ id, error: { type: 'invalid_request', code: 'not_for_replicas', message } }));
      }
      if (method === 'load') this.loads.add(id);
      const local = method === 'load' ? localLoad(params, this.o) : params;
      engine.stdin.write(encodeFrame({ id, method, params: local }));
    });
  }

  private spawnEngine(ws: WebSocket): ChildProcessWithoutNullStreams {
    const device = this.o.devices?.[this.i % this.o.devices.length];
    const engine = spawn(findPython(this.o.python, this.o.env ?? process.env), engineArgv(1), {
      cwd: ENGINE_DIR,
      env: {
        ...process.env,
        ...this.o.env,
        ...(device !== undefined ? { CUDA_VISIBLE_DEVICES: device } : {}),
        PYTHONUNBUFFERED: '1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.engine = engine;
    engine.stdin.on('error', () => undefined); // EPIPE after it exited is reported via 'exit'
    const decoder = new FrameDecoder((msg) => this.log(`engine frame dropped: ${msg}`));
    engine.stdout.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        ws.send(JSON.stringify(frame));
        const answer = AnswerSchema.safeParse(frame);
        if (answer.success && this.loads.delete(answer.data.id) && answer.data.error)
          this.stop(`the model could not be loaded here: ${answer.data.error.message}`);
      }
    });
    engine.stderr.setEncoding('utf8');
    engine.stderr.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim() !== '') this.log(line);
    });
    engine.on('error', (err) => this.log(`its engine could not start: ${err.message}`));
    engine.on('exit', (code, signal) => {
      if (this.engine === engine) this.engine = null;
      if (ws.readyState === WebSocket.OPEN)
        ws.close(ReplicaClose.engineExited, closeReason(`its engine exited (${signal ?? `code ${code}`})`));
    });
    return engine;
  }

  private closed(ws: WebSocket, code: number, reason: string): void {
    if (this.ws !== ws) return;
    this.ws = null;
    this.endEngine();
    if (this.stopped !== null) return;
    if (code === ReplicaClose.superseded || code === ReplicaClose.refused)
      return this.stop(`the worker ended it (${code}: ${reason})`);
    if (this.state === 'attached') this.log(`detached (${code}${reason ? `: ${reason}` : ''}); attaching again`);
    this.again();
  }

  private again(): void {
    if (this.stopped !== null) return;
    const policy = this.o.backoff ?? DEFAULT_BACKOFF;
    if (this.state === 'attached') this.attempt = attemptAfterCrash(this.attempt, Date.now() - this.upSince, policy);
    const delay = backoffDelay(this.attempt, policy);
    this.attempt += 1;
    this.state = 'connecting';
    this.timer = setTimeout(() => this.dial(), delay);
  }

  private endEngine(): void {
    const engine = this.engine;
    this.engine = null;
    if (!engine || engine.exitCode !== null) return;
    engine.stdin.end(); // the engine exits on EOF
    const kill = setTimeout(() => engine.kill('SIGKILL'), 5_000);
    engine.once('exit', () => clearTimeout(kill));
  }

  /** Stops this replica for good (a refusal's message, or the host stopping). */
  stop(why: string): void {
    if (this.stopped !== null) return;
    this.stopped = why;
    this.state = 'stopped';
    clearTimeout(this.timer);
    if (why !== 'stopping') this.log(`stopped: ${why}`);
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000, 'the replica host stops');
    const engine = this.engine;
    this.endEngine();
    if (!engine || engine.exitCode !== null) return this.finish();
    engine.once('exit', () => this.finish());
    engine.once('error', () => this.finish());
  }
}

/** Starts this host's replicas; they dial the worker until stopped or refused. */
export function startReplicaHost(o: ReplicaHostOptions): ReplicaHost {
  const files = formatModelFiles(modelFiles(o.model));
  const links = Array.from({ length: o.replicas }, (_, i) => new ReplicaLink(i, o, files));
  for (const link of links) link.dial();
  const done = Promise.all(links.map((l) => l.done)).then(() => undefined);
  return {
    links,
    done,
    async stop() {
      for (const link of links) link.stop('stopping');
      await done;
    },
  };
}
