// What each update trained, per episode: the trained samples holding the episode's tokens (a tree
// sample may hold its group's other episodes too), their merge statistics, and how it was trained
// (step, resulting weight version, advantage, estimator and merge settings). Kept in memory for the
// most recent `capacity` episodes, the way finished episodes are; the workbench fetches and stores
// them durably once a step names its episodes, so the worker does not write them to its run dir
// (they would be about three times the run's trained tokens, growing without bound).
import type { MergedSample, MergeStats } from '../../../src/shared/timeline/index';
import type { TrainedInfo } from '../../../src/shared/swarm-protocol';
import { trainedOfEpisode } from '../trainer/train-samples';
import type { CommittedStep } from './trainer-ports';

export interface TrainedEpisode {
  info: TrainedInfo;
  samples: MergedSample[];
  stats: MergeStats;
}

export class TrainedSamples {
  private readonly byEpisode = new Map<string, TrainedEpisode>();

  constructor(private readonly capacity = 2000) {}

  /**
   * Records the episodes a committed step trained. An episode without signal (a zero advantage: no
   * sample holds its tokens) is not recorded, so it keeps answering its preview — an episode's
   * merge and loss mask stay inspectable whether or not an update found signal in it.
   */
  record(step: CommittedStep): void {
    step.episodes.forEach((entry, i) => {
      const { samples, stats } = trainedOfEpisode(step.built, entry.episodeId, entry.calls);
      if (samples.length === 0) return;
      const info: TrainedInfo = {
        step: step.step,
        weightVersion: step.weightVersion,
        advantage: step.built.advantages[i] ?? 0,
        algo: step.settings.algo,
        merge: step.settings.merge,
        level: step.settings.level,
      };
      this.byEpisode.delete(entry.episodeId);
      this.byEpisode.set(entry.episodeId, { info, samples, stats });
    });
    while (this.byEpisode.size > this.capacity) {
      const oldest = this.byEpisode.keys().next().value;
      if (oldest === undefined) break;
      this.byEpisode.delete(oldest);
    }
  }

  get(episodeId: string): TrainedEpisode | undefined {
    return this.byEpisode.get(episodeId);
  }
}
