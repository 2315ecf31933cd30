// Benchmark `distill`, one arm: a fresh worker with the warm-started built-in model (or a resumed run),
// calculator-agent's openai clients through the client runner, GRPO with the training benchmark's
// settings, for a fixed time; held-out success (the eval split, judged by the verifiable reward) at
// the start and every --eval-every minutes while it trains (the eval episodes share the CPU with the
// training, in both arms alike), and at the end after the clients stopped. With a teacher the worker
// distils from it (--teacher-url; the clients' reward is ignored at --distill-weight 1).
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runFiles } from '../gpu-worker/src/swarm/run-dir';
import { subscribeEvents } from '../src/cli/train-events';
import { runEval, type EvalSummary } from '../src/node/eval';
import { ClientRunner, formatCompileMessage } from '../src/node/runner/index';
import { StatusSchema } from '../src/shared/swarm-protocol';
import type { MergeMode } from '../src/shared/timeline/types';
import { startArmWorker } from './arm-worker';
import { armSettings, writeArmResult, type CurvePoint, type DistillArmResult } from './distill-result';

const CLIENT = resolve(import.meta.dirname, '..', 'resources', 'examples', 'calculator-agent', 'client-openai.ts');

export interface DistillArmOptions {
  name: string;
  minutes: number;
  evalEveryMinutes: number;
  clients: number;
  /** GRPO tasks per update and episodes per task (the training benchmark's: 8 × 8). */
  batch: number;
  groupSize: number;
  /** Train past `minutes` until this many updates (at most 5 minutes more; 0: just `minutes`). */
  minUpdates: number;
  evalEpisodes: number;
  lr: number;
  lrEnd: number;
  threads: number;
  seed: number;
  /** Timeline merging of both arms (the worker's --merge: linear, tree, none). */
  merge: MergeMode;
  runDir: string;
  /**
   * With a teacher: the worker distils from it (`topK` > 0: also on its top-k at every trained token;
   * `keep` < 1: only that fraction of a step's samples trains).
   */
  teacher?: { url: string; token: string; weight: number; topK: number; keep: number };
  log: (line: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const point = (minutes: number, e: EvalSummary): CurvePoint => ({
  minutes,
  success: e.successRate,
  episodes: e.episodes,
});

/** The worker's run directory inside an arm's folder. */
export const armWorkerDir = (armDir: string): string => join(armDir, 'worker');

/**
 * Refuses an arm folder whose worker directory already holds a run (the worker would refuse it too, but
 * only when the arm starts: after the arms before it have run for their whole budget).
 */
export function refuseOccupiedArm(armDir: string, name: string): void {
  const files = runFiles(armWorkerDir(armDir));
  if (existsSync(files.state) || existsSync(files.pool))
    throw new Error(
      `[${name}] ${armDir} already holds a worker run that this bench would not read back (no finished result of these settings there): remove it or choose another --run-dir`,
    );
}

export async function runDistillArm(o: DistillArmOptions): Promise<DistillArmResult> {
  mkdirSync(o.runDir, { recursive: true });
  const logs = { worker: join(o.runDir, 'worker.log'), clients: join(o.runDir, 'clients.log') };
  const workerDir = armWorkerDir(o.runDir);
  const { worker, tokens } = await startArmWorker({
    runDir: workerDir,
    logFile: logs.worker,
    lr: o.lr,
    threads: o.threads,
    seed: o.seed,
    batch: o.batch,
    groupSize: o.groupSize,
    extra: {
      merge: o.merge,
      ...(o.teacher
        ? {
            teacherUrl: o.teacher.url,
            teacherToken: o.teacher.token,
            distillWeight: String(o.teacher.weight),
            distillTopK: String(o.teacher.topK),
            distillKeep: String(o.teacher.keep),
          }
        : {}),
    },
  });
  let updates = 0;
  let trainEpisodes = 0;
  const steps = { seconds: 0, count: 0, prefetched: 0, distilled: 0, kept: 0, keptSteps: 0 };
  const events = await subscribeEvents(worker.url, tokens.admin, {
    event: (e) => {
      if (e.type === 'episode_ended' && e.kind === 'train') trainEpisodes++;
      else if (e.type === 'step') {
        updates = e.metrics.weightVersion;
        steps.seconds += e.metrics.seconds;
        steps.count++;
        if (e.metrics.distillPrefetched !== undefined) {
          steps.prefetched += e.metrics.distillPrefetched;
          steps.distilled++;
        }
        if (e.metrics.distillKept !== undefined) {
          steps.kept += e.metrics.distillKept;
          steps.keptSteps++;
        }
      }
    },
    error: (m) => appendFileSync(logs.worker, `${m}\n`),
  });
  const runner = new ClientRunner({
    name: `bench-${o.name}`,
    serverUrl: worker.url,
    joinToken: tokens.join,
    count: o.clients,
    env: { AGENTJET_GROUP_SIZE: String(o.groupSize) },
  });
  runner.on('client:log', (l) => appendFileSync(logs.clients, `[${l.clientId}] ${l.line}\n`));
  let lrTimer: NodeJS.Timeout | null = null;
  const admin = { authorization: `Bearer ${tokens.admin}` };
  try {
    const curve = [point(0, await runEval(worker.url, tokens.join, o.evalEpisodes, 'calc'))];
    o.log(`  [${o.name}] start: held-out success ${(100 * curve[0]!.success).toFixed(1)}%`);
    const started = await runner.start({ entry: CLIENT });
    if (!started.ok) throw new Error(`client did not compile:\n${started.errors.map(formatCompileMessage).join('\n')}`);
    const t0 = performance.now();
    const elapsedMin = (): number => (performance.now() - t0) / 60_000;
    lrTimer = setInterval(() => {
      const lr = o.lr + (o.lrEnd - o.lr) * Math.min(1, elapsedMin() / o.minutes);
      void fetch(`${worker.url}/swarm/v1/config`, {
        method: 'PATCH',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ lr }),
      }).catch(() => undefined);
    }, 10_000);
    // Evaluations while training: each starts on the --eval-every grid and is stamped with its start.
    for (let k = 1; k * o.evalEveryMinutes < o.minutes; k++) {
      await sleep(Math.max(0, k * o.evalEveryMinutes - elapsedMin()) * 60_000);
      const at = elapsedMin();
      const e = await runEval(worker.url, tokens.join, o.evalEpisodes, 'calc');
      curve.push(point(at, e));
      o.log(`  [${o.name}] ${at.toFixed(1)} min · ${updates} updates · held-out ${(100 * e.successRate).toFixed(1)}%`);
    }
    await sleep(Math.max(0, o.minutes - elapsedMin()) * 60_000);
    for (let i = 0; i < 600 && updates < o.minUpdates; i++) await sleep(500);
    if (updates < o.minUpdates) throw new Error(`[${o.name}] ${updates} of ${o.minUpdates} updates in 5 minutes more`);
    const end = elapsedMin();
    await runner.stop();
    for (let i = 0; i < 240; i++) {
      const res = await fetch(`${worker.url}/swarm/v1/status`, { headers: admin });
      if (StatusSchema.parse(await res.json()).state !== 'updating') break;
      await sleep(500);
    }
    curve.push(point(end, await runEval(worker.url, tokens.join, o.evalEpisodes, 'calc')));
    o.log(`  [${o.name}] end (${end.toFixed(1)} min): held-out ${(100 * curve.at(-1)!.success).toFixed(1)}%`);
    await worker.checkpoint('bench end'); // a resumed worker serves these weights (the teacher)
    o.log(
      `  [${o.name}] ${steps.count} steps, ${(steps.seconds / Math.max(1, steps.count)).toFixed(2)} s each` +
        (steps.distilled > 0
          ? `; teacher sequences scored ahead: ${((100 * steps.prefetched) / steps.distilled).toFixed(0)} %`
          : '') +
        (steps.keptSteps > 0 ? `; samples trained: ${((100 * steps.kept) / steps.keptSteps).toFixed(0)} %` : ''),
    );
    const result: DistillArmResult = {
      name: o.name,
      curve,
      updates,
      stepSeconds: steps.seconds / Math.max(1, steps.count),
      ...(steps.distilled > 0 ? { prefetched: steps.prefetched / steps.distilled } : {}),
      ...(steps.keptSteps > 0 ? { kept: steps.kept / steps.keptSteps } : {}),
      trainEpisodes,
      workerDir,
      settings: armSettings(o),
    };
    writeArmResult(o.runDir, result);
    return result;
  } finally {
    if (lrTimer) clearInterval(lrTimer);
    await runner.dispose();
    events.close();
    await worker.dispose();
  }
}
