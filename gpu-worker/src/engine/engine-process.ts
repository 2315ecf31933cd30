// Spawns the Python engine and speaks to it over stdio frames (protocol v2) through an EngineChannel
// (engine-channel.ts: typed calls answered by id, streamed deltas, cancel, deadlines, protocol failures).
// The process exiting fails every call in flight; a protocol failure kills it; the supervisor restarts it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { EngineMethod, EngineParams, EngineResult } from '../../../src/shared/engine-protocol';
import { EngineChannel, type CallOptions } from './engine-channel';
import type { EngineDeadlines } from './engine-deadlines';
import { ENGINE_DIR, findPython } from './find-python';
import { encodeFrame, FrameDecoder } from './frames';

export interface EngineProcessOptions {
  /** Interpreter path; default AGENTJET_PYTHON or gpu-worker/engine/.venv. */
  python?: string;
  /** Overall limit for the process to start and answer `info`. */
  startTimeoutMs?: number;
  /** Receives every stderr line of the engine (its log). */
  onLog?: (line: string) => void;
  /** Called once if the process exits while not being disposed. */
  onExit?: (reason: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Engine ranks: 1 = one process; N > 1 = FSDP over N ranks started by torchrun (see `engineArgv`). */
  procs?: number;
  /** CUDA devices the ranks may use (CUDA_VISIBLE_DEVICES, e.g. "0,1"); rank r takes the r-th. */
  devices?: string | undefined;
  /** The trainer group spans several hosts (`engineArgv`); absent: this host alone. */
  nodes?: EngineNodes | undefined;
  /** Deadlines of calls that name none (defaults: DEFAULT_ENGINE_DEADLINES). */
  deadlines?: Partial<EngineDeadlines>;
}

/** Where this host's ranks sit in a trainer group over several hosts (--nnodes, --node-rank, --rdzv-endpoint). */
export interface EngineNodes {
  nnodes: number;
  nodeRank: number;
  /** host:port of node 0's rendezvous store. */
  endpoint: string;
}

/**
 * The engine's command line after the interpreter. N ranks run under torchrun's own launcher
 * (`python -m torch.distributed.run`, the standard way: it sets RANK/LOCAL_RANK/WORLD_SIZE/
 * MASTER_ADDR/MASTER_PORT, `--standalone` picks a free rendezvous port on this host, and its agent
 * ends the whole job when a rank fails); every rank inherits stdio, and only rank 0 speaks frames.
 * Over several hosts (`nodes`), each host's launcher joins torchrun's *static* rendezvous at node 0's
 * endpoint with its `--node-rank`, so global rank 0 — the one that speaks frames — is on node 0
 * (the dynamic c10d rendezvous would number the nodes by arrival).
 */
export function engineArgv(procs = 1, nodes?: EngineNodes): string[] {
  const multi = nodes !== undefined && nodes.nnodes > 1;
  if (procs <= 1 && !multi) return ['-u', '-m', 'agentjet_engine'];
  const where = multi
    ? [
        `--nnodes=${nodes.nnodes}`,
        `--node-rank=${nodes.nodeRank}`,
        '--rdzv-backend=static',
        `--rdzv-endpoint=${nodes.endpoint}`,
      ]
    : ['--standalone'];
  return [
    '-u',
    '-m',
    'torch.distributed.run',
    ...where,
    `--nproc-per-node=${procs}`,
    '--monitor-interval=0.5',
    '-m',
    'agentjet_engine',
  ];
}

export class EngineProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly channel: EngineChannel;
  private disposed = false;
  private readonly exited: Promise<void>;
  private readonly stderrTail: string[] = [];

  private constructor(private readonly opts: EngineProcessOptions) {
    const python = findPython(opts.python, opts.env ?? process.env);
    const devices = opts.devices !== undefined ? { CUDA_VISIBLE_DEVICES: opts.devices } : {};
    this.child = spawn(python, engineArgv(opts.procs, opts.nodes), {
      cwd: ENGINE_DIR,
      env: { ...process.env, ...opts.env, ...devices, PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.channel = new EngineChannel(
      {
        send: (frame) => this.child.stdin.write(encodeFrame(frame)),
        abort: () => this.child.kill('SIGKILL'),
      },
      {
        log: (line) => this.log(line),
        ...(opts.onExit ? { onExit: opts.onExit } : {}),
        deadlines: opts.deadlines,
      },
    );
    const decoder = new FrameDecoder((msg) => this.channel.protocolFailure(msg));
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) this.channel.receive(frame);
    });
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > 20) this.stderrTail.shift();
      this.log(line);
    });
    this.child.stdin.on('error', () => undefined); // EPIPE after a crash is reported via 'exit'.
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.channel.fail(`engine process could not start: ${err.message}`);
        resolve();
      });
      this.child.on('exit', (code, signal) => {
        const tail = this.stderrTail.slice(-5).join('\n');
        this.channel.fail(
          `engine process exited (${signal ?? `code ${code}`})${tail ? `; last log lines:\n${tail}` : ''}`,
        );
        resolve();
      });
    });
  }

  /** Spawns the engine and waits (up to startTimeoutMs) until it answers `info`. */
  static async start(opts: EngineProcessOptions = {}): Promise<EngineProcess> {
    const engine = new EngineProcess(opts);
    const timeoutMs = opts.startTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        engine.call('info', {}, { deadlineMs: timeoutMs }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`engine did not answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return engine;
    } catch (err) {
      await engine.dispose();
      throw err instanceof Error ? err : new Error(String(err));
    } finally {
      clearTimeout(timer);
    }
  }

  get alive(): boolean {
    return this.channel.exitReason === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts: CallOptions = {}): Promise<EngineResult<M>> {
    return this.channel.call(method, params, opts);
  }

  /** Closes stdin (the engine exits on EOF), then kills it if it lingers. */
  async dispose(): Promise<void> {
    if (this.disposed) return this.exited;
    this.disposed = true;
    this.channel.silence();
    if (this.channel.exitReason === null) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  private log(line: string): void {
    this.opts.onLog?.(line);
  }
}
