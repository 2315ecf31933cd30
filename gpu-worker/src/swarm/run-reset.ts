// `POST /swarm/v1/control/reset`: a fresh start without restarting the worker process — what a
// campaign trial on a remote worker needs. Claims are refused meanwhile; open episodes are aborted
// (reason `reset`); under the training lock the old run is checkpointed (its folder keeps the
// checkpoint, state and pool), the engine reloads the model's initial weights with a fresh
// optimizer, and a new private run folder (0700, files 0600; config, secret, pool; the same tokens) takes over with the
// startup training settings plus the given ones. Events go on in one sequence; a `state` event
// with reason `reset` marks the boundary.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { ResetRequestSchema, ResetResponse } from '../../../src/shared/worker-routes';
import { WorkerConfigSchema } from '../worker-config';
import type { LoadParams, EngineInfo } from '../../../src/shared/engine-protocol';
import { DurableCounters } from './durable-counters';
import { conflict, unavailable } from '../errors';
import { DurablePool } from './pool';
import { emptyCounters, loadOrCreateSecret, preparePrivateDir, runFiles, writeFileAtomic } from './run-dir';
import type { Swarm } from './swarm';
import type { GenerationGate } from './trainer-ports';

/** What a reset works with besides the swarm: the engine to reload, the generation gate to drain. */
export interface ResetDeps {
  swarm: Swarm;
  engine: { reload(patch: Partial<LoadParams>): Promise<EngineInfo> };
  generation: GenerationGate & { failAll(err: Error): void };
}

const resetting = new WeakSet<Swarm>();

function nextRunDir(swarm: Swarm, requested: string | undefined): string {
  const current = swarm.runDir;
  if (requested) return isAbsolute(requested) ? resolve(requested) : resolve(dirname(current), requested);
  const base = current.replace(/-reset-\d+$/, '');
  for (let n = 1; ; n++) {
    const dir = `${base}-reset-${n}`;
    if (!existsSync(dir)) return dir;
  }
}

/** Aborts the open episodes and waits (bounded) for ending ones to reach the pool. */
async function settleEpisodes(swarm: Swarm): Promise<void> {
  for (const ep of swarm.openEpisodes()) if (ep.status === 'open') swarm.abort(ep.id, 'reset');
  const deadline = Date.now() + 30_000;
  while (swarm.openEpisodes().some((e) => e.status === 'ending') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
}

export async function resetRun(deps: ResetDeps, req: z.output<typeof ResetRequestSchema>): Promise<ResetResponse> {
  const { swarm, generation } = deps;
  if (resetting.has(swarm)) throw conflict('resetting', 'a reset is already in progress');
  if (swarm.state === 'stopping') throw unavailable('stopping', 'the worker is shutting down', 30);
  if (swarm.engine.status !== 'ready')
    throw unavailable('engine_unavailable', 'the engine is not ready; reset once it is', 5);
  const runDir = nextRunDir(swarm, req.runDir);
  const files = runFiles(runDir);
  if (existsSync(files.state) || existsSync(files.pool))
    throw conflict('run_dir_in_use', `${runDir} already holds a run; name another runDir`);
  resetting.add(swarm);
  const wasPaused = swarm.isPaused;
  swarm.pause('resetting');
  const previousDir = swarm.runDir;
  try {
    await settleEpisodes(swarm);
    const config = WorkerConfigSchema.parse({
      ...swarm.config,
      runDir,
      seed: req.config.seed ?? swarm.config.seed,
      training: { ...startupTraining(swarm), ...req.config.training },
    });
    let weightVersion = 0;
    const old = await swarm.trainer.resetRun(async () => {
      await generation.pause();
      generation.failAll(unavailable('resetting', 'the worker was reset to a new run; claim a new episode', 2));
      try {
        weightVersion = (await deps.engine.reload({ seed: config.seed })).weightVersion;
        preparePrivateDir(files.dir);
        writeFileAtomic(files.config, `${JSON.stringify(config, null, 2)}\n`);
        const oldFiles = runFiles(previousDir);
        if (existsSync(oldFiles.tokens)) writeFileAtomic(files.tokens, readFileSync(oldFiles.tokens), 0o600);
        const secret = loadOrCreateSecret(files);
        const pool = await DurablePool.open(files.pool, 0, (m) => swarm.log('warn', 'pool', m));
        const counters = DurableCounters.open(files.counters, emptyCounters(), (m) => swarm.log('warn', 'counters', m));
        const oldPool = swarm.replaceRun({ config, files, pool, secret, counters: counters.counters });
        await oldPool.dispose();
        copyWorkerFile(oldFiles.worker, files.worker);
        return { pool, files };
      } finally {
        generation.resume();
      }
    });
    swarm.log(
      'info',
      'control',
      `reset: ${previousDir} checkpointed at step ${old.step}; new run ${runDir} from the initial weights`,
    );
    return {
      runDir,
      step: swarm.step,
      weightVersion,
      previous: { runDir: previousDir, checkpoint: old.path, step: old.step },
    };
  } finally {
    resetting.delete(swarm);
    if (wasPaused) swarm.pause('reset');
    else swarm.resume('reset');
  }
}

/** The training settings the worker process started with (its first run's config.json). */
const startupConfigs = new WeakMap<Swarm, Record<string, unknown>>();
function startupTraining(swarm: Swarm): Record<string, unknown> {
  let saved = startupConfigs.get(swarm);
  if (!saved) {
    saved = { ...swarm.config.training };
    startupConfigs.set(swarm, saved);
  }
  return saved;
}

/** worker.json (pid, url, port, boot id) follows the worker into the new run folder. */
function copyWorkerFile(from: string, to: string): void {
  try {
    const info = z.record(z.string(), z.unknown()).parse(JSON.parse(readFileSync(from, 'utf8')));
    writeFileAtomic(to, `${JSON.stringify({ ...info, resetAt: Date.now() }, null, 2)}\n`);
  } catch {
    // No worker.json (an embedded worker in a test): nothing to carry over.
  }
}
