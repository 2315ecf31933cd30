// The reward-hacking alarm as a backend event (issue #24 §1): after each training step of the live run
// the watch re-judges the run's episodes that reported both the reward model's score and the verifiable
// reward (hackingAlarm, src/shared/reward-hacking.ts — the rule the Rewards panel's chart uses), and when
// the verdict turns on (or off again) it logs a line and pushes a `reward_hacking` event, which the
// workbench shows in its log and on the Charts panel. Runs without those metrics never ring.
import { hackingAlarm, type HackingVerdict } from '../../shared/reward-hacking';
import { RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC } from '../../shared/reward-model';
import type { WorkbenchEvent } from '../../shared/workbench-api';
import type { Store } from '../store/types';

export interface HackingWatchOptions {
  runId: string;
  store: Store;
  /** Writes pending event batches before a read. */
  flush: () => void;
  emit: (e: WorkbenchEvent) => void;
  log: (line: string) => void;
  /** Episodes judged (the newest; default 5000, as the chart). */
  limit?: number;
}

/** The alarm's text, for logs and the workbench. */
export function hackingMessage(v: HackingVerdict, episodes: number): string {
  if (!v.alarm) return `reward-hacking alarm cleared (${episodes} scored episodes)`;
  const pct = (x: number | null): string => (x === null ? '?' : (100 * x).toFixed(1));
  return (
    `possible reward hacking: the reward model's score rose ${(v.scoreRise ?? 0).toFixed(2)} std while verifiable ` +
    `success fell ${pct(v.successDrop)} ± ${pct(v.successDropSe)} points (first vs last ${v.window} of ${episodes} ` +
    'scored episodes): add labels on recent episodes and retrain, or weight the verifiable reward in'
  );
}

export class HackingWatch {
  private ringing = false;

  constructor(private readonly o: HackingWatchOptions) {}

  /** Re-judges the run; the verdict (also when unchanged), null when the store could not be read (logged). */
  check(): HackingVerdict | null {
    try {
      return this.judge();
    } catch (err) {
      this.o.log(`reward-hacking check failed: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  }

  private judge(): HackingVerdict {
    this.o.flush();
    const pairs = this.o.store.metricPairs(
      this.o.runId,
      RM_SCORE_METRIC,
      VERIFIABLE_REWARD_METRIC,
      this.o.limit ?? 5000,
    );
    const verdict = hackingAlarm(pairs.map((p) => ({ rmScore: p.x, verifiable: p.y })));
    if (verdict.alarm !== this.ringing) {
      this.ringing = verdict.alarm;
      const message = hackingMessage(verdict, pairs.length);
      this.o.log(message);
      this.o.emit({
        type: 'reward_hacking',
        runId: this.o.runId,
        verdict,
        episodes: pairs.length,
        message,
        at: Date.now(),
      });
    }
    return verdict;
  }
}
