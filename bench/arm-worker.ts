// The worker of one training arm in the `distill` and `reward-model` benchmarks: a fresh worker with the
// warm-started built-in model, GRPO (C2) at the given settings on a free port, fresh tokens, its log
// appended to a file.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { startWorker, type Worker } from '../gpu-worker/src/worker';
import { workerConfigFromOptions, WorkerOptionsSchema } from '../src/cli/worker';

export interface ArmWorkerOptions {
  runDir: string;
  logFile: string;
  lr: number;
  threads: number;
  seed: number;
  /** Tasks per update and episodes per task (default 8 × 8, the training benchmark's). */
  batch?: number;
  groupSize?: number;
  /** More worker options, as `agentjet worker` takes them (strings). */
  extra?: Record<string, string>;
}

export async function startArmWorker(
  o: ArmWorkerOptions,
): Promise<{ worker: Worker; tokens: { admin: string; join: string } }> {
  const wo = WorkerOptionsSchema.parse({
    runDir: o.runDir,
    port: '0',
    model: 'builtin',
    strategy: 'C2',
    batch: String(o.batch ?? 8),
    groupSize: String(o.groupSize ?? 8),
    lr: String(o.lr),
    threads: String(o.threads),
    seed: String(o.seed),
    // linear: the distill and reward-model series in bench/RESULTS.md train with it (distill's --merge overrides)
    merge: 'linear',
    ...o.extra,
  });
  const tokens = { admin: randomBytes(16).toString('hex'), join: randomBytes(16).toString('hex') };
  const worker = await startWorker(workerConfigFromOptions(wo).config, {
    tokens,
    log: (l) => appendFileSync(o.logFile, `${l}\n`),
  });
  return { worker, tokens };
}
