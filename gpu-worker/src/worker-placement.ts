// Where the worker's generation runs (engine/replicas/placement.ts: the trainer's own engine, or rollout
// replicas), with its log lines going to the swarm once it exists.
import type { LoadParams } from '../../src/shared/engine-protocol';
import type { EngineHost } from './engine/engine-host';
import { startPlacement, type Placement } from './engine/replicas/placement';
import type { DurablePool } from './swarm/pool';
import type { Swarm } from './swarm/swarm';
import type { WorkerConfig } from './worker-config';

/** Where generation runs (engine/replicas/placement.ts); should it fail, the engine and the pool are closed. */
export function placeGeneration(
  config: WorkerConfig,
  engine: EngineHost,
  pool: DurablePool,
  load: LoadParams,
  log: (line: string) => void,
  swarm: () => Swarm | null,
): Promise<Placement> {
  return startPlacement(config, engine, {
    load,
    log: (level, source, message) => {
      const s = swarm();
      if (s) s.log(level, source, message);
      else log(`${source}: ${message}`);
    },
  }).catch(async (err: unknown) => {
    await Promise.allSettled([engine.dispose(), pool.dispose()]);
    throw err;
  });
}
