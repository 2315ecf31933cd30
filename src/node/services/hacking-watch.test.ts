import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC } from '../../shared/reward-model';
import type { WorkbenchEvent } from '../../shared/workbench-api';
import { episodeInput, newRun, tempStore, type TempStore } from '../store/test-support';
import { HackingWatch } from './hacking-watch';

let t: TempStore;
beforeEach(() => {
  t = tempStore();
  t.store.createRun(newRun('r1'));
});
afterEach(() => t.cleanup());

let seq = 0;
/** `n` episodes (in time order) with the score and verifiable success given by `f(i)`. */
function addEpisodes(n: number, f: (i: number) => [number, number]): void {
  for (let i = 0; i < n; i++) {
    const id = `e${seq}`;
    t.store.putEpisode('r1', episodeInput(id, { createdAt: 1000 + seq++ }));
    const [score, ok] = f(i);
    t.store.putEpisodeMetrics('r1', id, { [RM_SCORE_METRIC]: score, [VERIFIABLE_REWARD_METRIC]: ok });
  }
}

describe('HackingWatch (SQLite store)', () => {
  it('rings once when the score rises while verifiable success falls, and clears once when it recovers', () => {
    const events: WorkbenchEvent[] = [];
    const logs: string[] = [];
    const watch = new HackingWatch({
      runId: 'r1',
      store: t.store,
      flush: () => undefined,
      emit: (e) => events.push(e),
      log: (l) => logs.push(l),
    });
    addEpisodes(60, (i) => [i % 2, i % 5 < 2 ? 1 : 0]); // score ~0.5, success 40%
    expect(watch.check()?.alarm).toBe(false); // too few episodes to judge: no event
    addEpisodes(60, (i) => [0.5 + (i % 2), i % 5 < 2 ? 1 : 0]);
    addEpisodes(60, (i) => [2 + (i % 2), i % 10 === 0 ? 1 : 0]); // score up, success 10%
    expect(watch.check()?.alarm).toBe(true);
    expect(watch.check()?.alarm).toBe(true); // still ringing: no second event
    expect(events).toHaveLength(1);
    const e = events[0]!;
    expect(e.type === 'reward_hacking' && e.verdict.alarm && e.episodes).toBe(180);
    expect(logs[0]).toContain('possible reward hacking');
    // The policy recovers (the last window succeeds again): the alarm clears, once.
    addEpisodes(120, (i) => [2 + (i % 2), i % 5 < 3 ? 1 : 0]);
    expect(watch.check()?.alarm).toBe(false);
    expect(events.map((x) => x.type === 'reward_hacking' && x.verdict.alarm)).toEqual([true, false]);
    expect(logs[1]).toContain('cleared');
  });

  it('reports a store it cannot read as a log line, not a throw', () => {
    const logs: string[] = [];
    const watch = new HackingWatch({
      runId: 'r1',
      store: t.store,
      flush: () => {
        throw new Error('disk full');
      },
      emit: () => undefined,
      log: (l) => logs.push(l),
    });
    expect(watch.check()).toBeNull();
    expect(logs).toEqual(['reward-hacking check failed: disk full']);
  });
});
