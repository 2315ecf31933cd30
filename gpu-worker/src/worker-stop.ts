// How a running worker stops: at once (`dispose`: refuse new work, close everything), or on SIGTERM
// (`shutdown`: refuse new work, let running generations finish and checkpoint — both bounded by
// --stop-timeout — then dispose).
import type { GenerationGate } from './engine/admission';
import type { EngineHost } from './engine/engine-host';
import { unavailable } from './errors';
import type { Swarm } from './swarm/swarm';
import type { WorkerConfig } from './worker-config';

/**
 * The worker's two ways to stop: `dispose` closes everything at once (`close`) after refusing new
 * work; `shutdown` (SIGTERM) first lets running generations finish and checkpoints, both bounded.
 */
export function stopping(
  config: WorkerConfig,
  log: (line: string) => void,
  o: { swarm: Swarm; scheduler: GenerationGate; engine: EngineHost; close: () => Promise<void> },
): { shutdown: (reason?: string) => Promise<void>; dispose: () => Promise<void> } {
  const { swarm: s, scheduler, engine } = o;
  let disposed: Promise<void> | null = null;
  const dispose = (): Promise<void> => {
    disposed ??= (async () => {
      s.beginStop();
      scheduler.failAll(unavailable('stopping', 'the worker is shutting down', 30));
      await o.close();
    })();
    return disposed;
  };
  const shutdown = async (reason = 'shutdown'): Promise<void> => {
    if (disposed) return disposed;
    s.beginStop(reason);
    // Bounded however busy the engine is: past the deadline the engine is killed (dispose) and
    // the run resumes from its previous checkpoint.
    const deadline = Date.now() + config.stopTimeoutS * 1000;
    const left = (): Promise<'late'> =>
      new Promise((r) => setTimeout(() => r('late'), Math.max(0, deadline - Date.now())).unref());
    await Promise.race([
      scheduler.pause(),
      new Promise((r) => setTimeout(r, Math.min(10_000, config.stopTimeoutS * 500)).unref()),
    ]);
    if (engine.status === 'ready') {
      try {
        const done = await Promise.race([s.trainer.checkpoint(reason).then(() => 'saved' as const), left()]);
        if (done === 'late')
          log(
            `[error] worker: the checkpoint on ${reason} did not finish within ${config.stopTimeoutS} s ` +
              '(engine busy?); stopping the engine without it — --resume continues from the previous checkpoint',
          );
      } catch (err) {
        log(`[error] worker: checkpoint on ${reason} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    await dispose();
  };
  return { shutdown, dispose };
}
