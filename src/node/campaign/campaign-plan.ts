// What a campaign's spec sets up before its first trial: the Optuna study's options (space, grid,
// sampler, pruner) and the slots its trials run on (local worker processes, remote workers).
import { cpus } from 'node:os';
import { join } from 'node:path';
import { gridOf, toDistribution } from '../../shared/campaign/space';
import type { CampaignSpec } from '../../shared/campaign/spec';
import type { StudyOptions } from './optuna-client';
import { LocalSlot, localParallel, RemoteSlot, type Slot } from './slots';

/** The study's options: its storage, direction, search space (and grid), sampler and pruner. */
export function studyOptions(spec: CampaignSpec, storage: string): StudyOptions {
  const grid = spec.optimizer.sampler === 'grid' ? gridOf(spec.search).grid : undefined;
  const { pruner } = spec.optimizer;
  return {
    storage,
    studyName: spec.name,
    direction: spec.objective.direction,
    space: Object.fromEntries(Object.entries(spec.search).map(([k, p]) => [k, toDistribution(p)])),
    ...(grid ? { grid } : {}),
    sampler: {
      type: spec.optimizer.sampler,
      seed: spec.optimizer.seed,
      ...(spec.optimizer.startupTrials !== undefined ? { startupTrials: spec.optimizer.startupTrials } : {}),
    },
    pruner: {
      type: pruner.type,
      minResource: pruner.minResource,
      reductionFactor: pruner.reductionFactor,
      ...(pruner.maxResource !== undefined ? { maxResource: pruner.maxResource } : {}),
    },
  };
}

/** The campaign's slots: its local workers (threads split between them) and its remote workers. */
export function slotsFor(spec: CampaignSpec, repoRoot: string): Slot[] {
  const parallel = localParallel(spec.workers.local);
  const threads = spec.base.worker.threads ?? Math.max(1, Math.floor(cpus().length / Math.max(1, parallel)) - 1);
  return [
    ...Array.from(
      { length: spec.workers.local === 0 ? 0 : parallel },
      (_, i) =>
        new LocalSlot(`local-${i + 1}`, {
          bin: join(repoRoot, 'bin', 'agentjet.mjs'),
          repoRoot,
          threads,
        }),
    ),
    ...spec.workers.remote.map((w) => new RemoteSlot(w)),
  ];
}
