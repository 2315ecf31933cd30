// The staleness bound at training time (issue #21 §3): with --async no update trains an episode whose oldest
// generated token lags the weights it updates by more than K (--staleness-bound), whichever strategy (C1–C5)
// selected it; the dropped episodes are counted in the step's health. In synchronous mode --max-staleness
// alone bounds it.
import { afterEach, describe, expect, it } from 'vitest';
import type { Strategy } from '../../../src/shared/swarm-protocol';
import { FakeEngine } from '../testing/fake-engine';
import { cleanupRigs, episode, trainerRig } from '../testing/trainer-rig';

afterEach(cleanupRigs);

/**
 * The engine at weight version 3; task `fresh` sampled at 2 (one version behind), task `old` at 1 (two
 * behind). C1 takes 4 episodes, C2/C3 two groups of two, C4/C5 everything once the one client agrees.
 */
async function run(strategy: Strategy, async: boolean) {
  const engine = new FakeEngine();
  engine.weightVersion = 3;
  const t = await trainerRig(
    { strategy, batch: strategy === 'C1' ? 4 : 2, groupSize: 2, stalenessBound: 1, maxStaleness: 5 },
    engine,
    async,
  );
  const fresh = [episode('fresh', 1, 2), episode('fresh', 0, 2)];
  const old = [episode('old', 1, 1), episode('old', 0, 1)];
  for (const e of [...old, ...fresh]) await t.pool.add(e);
  if (strategy === 'C4' || strategy === 'C5') {
    t.sync.seen('c', 1000);
    t.sync.agree('c');
  }
  t.trainer.poke();
  await t.until(`a step under ${strategy}`, () => t.events.some((e) => e.type === 'step'));
  const step = t.events.find((e) => e.type === 'step');
  if (step?.type !== 'step') throw new Error('no step');
  return { t, step, fresh: fresh.map((e) => e.episodeId), old: old.map((e) => e.episodeId) };
}

describe('Trainer: the staleness bound at training time', () => {
  for (const strategy of ['C1', 'C2', 'C3', 'C4', 'C5'] as const) {
    it(`${strategy}, --async K=1: trains only the episodes within the bound and counts the rest`, async () => {
      const { t, step, fresh, old } = await run(strategy, true);
      expect([...(step.episodeIds ?? [])].sort()).toEqual([...fresh].sort());
      const dropped = t.events.flatMap((e) =>
        e.type === 'episodes_dropped' && e.reason === 'stale' ? e.episodeIds : [],
      );
      expect(dropped.sort()).toEqual([...old].sort());
      expect(step.metrics.droppedStale).toBe(2);
      expect(step.metrics.maxStaleness).toBeLessThanOrEqual(1);
      expect(step.metrics.health).toMatchObject({ stalenessBound: 1, droppedOverBound: 2 });
      expect(step.metrics.health?.overBoundTokens).toBeGreaterThan(0);
      expect(step.metrics.health?.stalenessMax).toBeLessThanOrEqual(1);
      expect(t.pool.size).toBe(0);
    });
  }

  it('synchronous: --max-staleness alone bounds it (the same pool trains whole)', async () => {
    const { step, fresh, old } = await run('C1', false);
    expect([...(step.episodeIds ?? [])].sort()).toEqual([...fresh, ...old].sort());
    expect(step.metrics.health).toMatchObject({ stalenessBound: 5, droppedOverBound: 0, stalenessMax: 2 });
  });
});
