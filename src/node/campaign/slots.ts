// Where trials run. A local slot launches a fresh `agentjet worker` child process per trial in the
// trial's folder (the workbench's WorkerProcess: parent watchdog, SIGTERM checkpoints); a remote
// slot resets a running worker to a new run (`POST /swarm/v1/control/reset`) and pauses it after.
// Either way the trial gets a worker with its training settings applied, and a promise that
// settles with the cause when the worker dies or stops answering.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { cpus, freemem } from 'node:os';
import { join } from 'node:path';
import type { RemoteWorker, TrialSetup } from '../../shared/campaign/spec';
import type { Status } from '../../shared/swarm-protocol';
import { WorkerProcess } from '../services/worker-process';
import { WorkerClient } from '../worker-client';

/** How long an admin call of a trial may take (a reset checkpoints and reloads: much longer). */
const CALL_MS = 30_000;
const RESET_MS = 600_000;

export interface TrialWorker {
  /** `local` or the remote worker's URL. */
  label: string;
  url: string;
  adminToken: string;
  joinToken: string;
  /** The trial's run folder on the worker's machine. */
  runDir: string;
  /** The events sequence number the trial starts after. */
  eventSeq: number;
  status: Status;
  /** Settles with the cause if the worker dies or stops answering. */
  failed: Promise<string>;
  /** Ends the trial on this worker (local: SIGTERM, it checkpoints; remote: paused). */
  release(): Promise<void>;
}

export interface Slot {
  readonly label: string;
  start(setup: TrialSetup, trialDir: string, name: string): Promise<TrialWorker>;
}

/** How many local workers to run at once: about one per two cores, and ~1.5 GB of free memory each. */
export function localParallel(setting: number | 'auto', cores = cpus().length, free = freemem()): number {
  if (setting !== 'auto') return setting;
  return Math.max(1, Math.min(Math.floor(cores / 2), Math.floor(free / 1.5e9)));
}

/** Polls health; after `misses` failures in a row (or a failed engine) the worker counts as lost. */
function watchHealth(http: WorkerClient, everyMs: number, misses = 3): { failed: Promise<string>; stop: () => void } {
  let stop = (): void => undefined;
  const failed = new Promise<string>((resolve) => {
    let missed = 0;
    const timer = setInterval(() => {
      http.health(Math.min(everyMs, 10_000)).then(
        (h) => {
          missed = 0;
          if (h.state === 'failed') resolve("the worker's engine failed and could not be restarted");
        },
        (err: unknown) => {
          if (++missed >= misses)
            resolve(`the worker stopped answering: ${err instanceof Error ? err.message : String(err)}`);
        },
      );
    }, everyMs);
    timer.unref();
    stop = () => clearInterval(timer);
  });
  return { failed, stop };
}

export class LocalSlot implements Slot {
  constructor(
    readonly label: string,
    private readonly o: { bin: string; repoRoot: string; threads: number; startTimeoutMs?: number },
  ) {}

  async start(setup: TrialSetup, trialDir: string): Promise<TrialWorker> {
    const tokens = { admin: randomBytes(24).toString('hex'), join: randomBytes(24).toString('hex') };
    const runDir = join(trialDir, 'worker');
    const log = join(trialDir, 'worker.log');
    const args = [
      '--model',
      setup.model,
      '--threads',
      String(setup.threads ?? this.o.threads),
      '--seed',
      String(setup.seed),
      '--checkpoint-every',
      '0',
      '--port',
      '0',
      '--run-dir',
      runDir,
    ];
    if (setup.episodeTimeoutS !== undefined) args.push('--episode-timeout', String(setup.episodeTimeoutS));
    let onExit: (why: string) => void = () => undefined;
    const exited = new Promise<string>((r) => (onExit = r));
    const { proc, url } = await WorkerProcess.start({
      bin: this.o.bin,
      cwd: this.o.repoRoot,
      args,
      tokens,
      workerFile: join(runDir, 'worker.json'),
      onLine: (stream, line) => appendFileSync(log, `[${stream}] ${line}\n`),
      onExit: (code, signal) => onExit(`the worker process exited (${signal ?? `code ${code}`}); see ${log}`),
      ...(this.o.startTimeoutMs ? { startTimeoutMs: this.o.startTimeoutMs } : {}),
    });
    try {
      // Every training option through the config route (it declares them all, where flags do not).
      const worker = new WorkerClient(url, tokens.admin, { timeoutMs: CALL_MS });
      await worker.call('updateConfig', { body: setup.training });
      const status = await worker.status();
      let released = false;
      return {
        label: this.label,
        url,
        adminToken: tokens.admin,
        joinToken: tokens.join,
        runDir,
        eventSeq: status.eventSeq,
        status,
        failed: exited.then((why) => (released ? new Promise<string>(() => undefined) : why)),
        release: async () => {
          released = true;
          await proc.stop(30_000);
        },
      };
    } catch (err) {
      await proc.stop(5000);
      throw err;
    }
  }
}

export class RemoteSlot implements Slot {
  readonly label: string;

  constructor(
    private readonly w: RemoteWorker,
    private readonly healthEveryMs = 5000,
  ) {
    this.label = w.url;
  }

  async start(setup: TrialSetup, _trialDir: string, name: string): Promise<TrialWorker> {
    const http = new WorkerClient(this.w.url, this.w.adminToken, { timeoutMs: CALL_MS });
    const health = await http.health(10_000);
    if (setup.model !== 'builtin' && setup.model !== health.model) {
      // A remote worker keeps the model it was started with.
      throw new Error(`the remote worker ${this.w.url} serves ${health.model}; it cannot switch to ${setup.model}`);
    }
    const body = { config: { training: setup.training, seed: setup.seed }, runDir: name };
    const reset = await http.call('reset', { body }, { timeoutMs: RESET_MS });
    await http.call('start', {});
    const status = await http.status();
    const watch = watchHealth(http, this.healthEveryMs);
    return {
      label: this.label,
      url: this.w.url,
      adminToken: this.w.adminToken,
      joinToken: this.w.joinToken,
      runDir: reset.runDir,
      eventSeq: status.eventSeq,
      status,
      failed: watch.failed,
      release: async () => {
        watch.stop();
        await http.call('pause', {}).catch(() => undefined);
      },
    };
  }
}
