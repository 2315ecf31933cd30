// On-policy distillation's teacher scoring ahead (trainer/teacher-prefetch.ts): each task group complete
// in the pool — the groups C2/C3 select — goes to the teacher as soon as it completes, built exactly as
// its update will build it, so the teacher works while the student generates instead of inside the update.
import { completeGroups } from '../../../src/shared/batching';
import { teacherSequence } from '../trainer/distill-step';
import type { Teacher } from '../trainer/teacher';
import type { ScoredEpisode } from '../trainer/train-samples';
import { allSamplesFor, type TrainSettings } from '../trainer/train-step';
import type { PoolEntry } from './pool';

/** A pooled episode as the sample builder reads it. */
export const scoredEpisode = (e: PoolEntry): ScoredEpisode => ({
  episodeId: e.episodeId,
  groupKey: e.taskId,
  ...(e.role !== undefined ? { role: e.role } : {}),
  reward: e.reward,
  timelines: e.calls,
});

export class ScoreAhead {
  /** Pooled episodes whose task group went to the teacher. */
  private readonly sent = new Set<string>();

  constructor(private readonly warn: (message: string) => void) {}

  /** Sends every complete group not sent yet (a teacher without `prefetch`, or weight 0: nothing). */
  run(
    pool: readonly PoolEntry[],
    cfg: TrainSettings & { groupSize: number },
    teacher: Teacher | null | undefined,
  ): void {
    if (!teacher?.prefetch || (cfg.distillWeight ?? 1) === 0) return;
    const byId = new Map(pool.map((e) => [e.episodeId, e]));
    for (const id of this.sent) if (!byId.has(id)) this.sent.delete(id);
    for (const g of completeGroups(pool, cfg.groupSize)) {
      if (g.items.every((i) => this.sent.has(i.episodeId))) continue;
      const episodes = g.items.flatMap((i) => byId.get(i.episodeId) ?? []);
      for (const e of episodes) this.sent.add(e.episodeId);
      try {
        teacher.prefetch(allSamplesFor(episodes.map(scoredEpisode), cfg).samples.map(teacherSequence));
      } catch (err) {
        // Its update builds the samples again and reports what is wrong with them; nothing is lost here.
        this.warn(`could not score task ${g.taskId} ahead: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
