// A trainer group over several hosts (issue #21 §2: --nnodes, --node-rank, --rdzv-endpoint). Node 0 runs
// the worker, whose engine launcher joins torchrun's static rendezvous as node 0 (engine-process.ts
// `engineArgv`): global rank 0 speaks the frames there and drives every other rank through the collectives
// of distributed.py. A node I > 0 runs only this: its launcher with --node-rank I, whose ranks follow
// rank 0 — and, when the group ends (a rank died, the worker restarted its engine), it starts them again,
// so they join the restarted group. The model folder must be at the same path on every node.
import { spawn, type ChildProcess } from 'node:child_process';
import { engineArgv, type EngineNodes } from './engine-process';
import { ENGINE_DIR, findPython } from './find-python';

/** The node settings of a worker config: undefined on a single host; refuses what cannot work. */
export function nodesOf(c: {
  nnodes: number;
  nodeRank: number;
  rdzvEndpoint?: string | undefined;
}): EngineNodes | undefined {
  if (c.nodeRank >= c.nnodes) throw new Error(`--node-rank ${c.nodeRank} must be below --nnodes ${c.nnodes}`);
  if (c.nnodes <= 1) return undefined;
  if (c.rdzvEndpoint === undefined)
    throw new Error("--nnodes > 1 needs --rdzv-endpoint HOST:PORT (node 0's address, reachable from every node)");
  return { nnodes: c.nnodes, nodeRank: c.nodeRank, endpoint: c.rdzvEndpoint };
}

export interface RankNodeOptions {
  nodes: EngineNodes;
  /** Ranks on this node (--engine-procs). */
  procs: number;
  devices?: string | undefined;
  python?: string;
  env?: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** Wait before starting the ranks again after the group ended (default 1 s). */
  restartDelayMs?: number;
}

export interface RankNode {
  /** Times this node's launcher has been started. */
  readonly starts: number;
  readonly pid: number | undefined;
  /** Stops the launcher (and with it the ranks) and does not start it again. */
  stop(): Promise<void>;
  /** Resolves once stopped. */
  readonly stopped: Promise<void>;
}

/** Starts node I's engine ranks and keeps them up until `stop`. */
export function startRankNode(o: RankNodeOptions): RankNode {
  if (o.nodes.nodeRank === 0) throw new Error('node 0 runs the worker itself, not a rank node');
  const python = findPython(o.python, o.env ?? process.env);
  const devices = o.devices !== undefined ? { CUDA_VISIBLE_DEVICES: o.devices } : {};
  let child: ChildProcess | null = null;
  let starts = 0;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let done: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (done = resolve));
  const launch = (): void => {
    starts += 1;
    const c = spawn(python, engineArgv(o.procs, o.nodes), {
      cwd: ENGINE_DIR,
      env: { ...process.env, ...o.env, ...devices, PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = c;
    c.stderr?.setEncoding('utf8');
    c.stderr?.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim() !== '') o.log(line);
    });
    c.on('exit', (code, signal) => {
      child = null;
      if (stopping) return done();
      o.log(`node ${o.nodes.nodeRank}: the ranks ended (${signal ?? `code ${code}`}); starting them again`);
      timer = setTimeout(launch, o.restartDelayMs ?? 1000);
    });
  };
  launch();
  return {
    get starts() {
      return starts;
    },
    get pid() {
      return child?.pid;
    },
    stopped,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      const c = child;
      if (c === null) return done();
      c.kill('SIGTERM');
      const kill = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await stopped;
      clearTimeout(kill);
    },
  };
}
