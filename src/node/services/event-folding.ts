// Turns the worker's event stream into what the workbench charts and lists: StepPoints (one per
// `step` event, which carries its merge statistics), EvalPoints (one per weight version, the
// latest running figures), EpisodeRows (started → ended/aborted/expired) and session patches.
// Pure: state in, outputs out; no clock, no I/O.
import type { StepMerge, SwarmEvent } from '../../shared/swarm-events';
import type { BatchProgress, StepMetrics, WorkerState } from '../../shared/swarm-protocol';
import type { EvalPoint, StepPoint } from '../../shared/workbench-api';
import type { EpisodeInput } from '../store/types';

export interface SessionPatch {
  state?: WorkerState;
  step?: number;
  weightVersion?: number;
  progress?: BatchProgress;
  poolEpisodes?: number;
}

export interface FoldOutput {
  steps: StepPoint[];
  evals: EvalPoint[];
  episodes: EpisodeInput[];
  /** Episodes that just finished (their timelines can be fetched now). */
  finished: string[];
  session: SessionPatch | null;
  /** Episodes a step just consumed (their trained samples can be fetched now). */
  trained: string[];
}

type EventOf<T extends SwarmEvent['type']> = Extract<SwarmEvent, { type: T }>;

interface FoldedStep {
  metrics: StepMetrics;
  time: number;
  rolloutS: number;
}

const emptyOutput = (): FoldOutput => ({
  steps: [],
  evals: [],
  episodes: [],
  finished: [],
  session: null,
  trained: [],
});

/** Folds events one at a time; keeps the open episodes and when the last step was. */
export class EventFolder {
  private readonly open = new Map<string, EpisodeInput>();
  private readonly evalTimes = new Map<number, number>();
  private lastTrainedStep: number | null = null;
  /** Time of the previous step event; before the first step, of the first episode's start. */
  private lastStepAt: number | null = null;

  fold(e: SwarmEvent): FoldOutput {
    const out = emptyOutput();
    switch (e.type) {
      case 'state':
        out.session = { state: e.state, step: e.step, weightVersion: e.weightVersion };
        break;
      case 'batch_progress':
        out.session = { progress: e.progress, poolEpisodes: e.poolEpisodes };
        break;
      case 'episode_started':
        this.started(e, out);
        break;
      case 'episode_ended': {
        const row: EpisodeInput = {
          ...this.base(e.episodeId, e.clientId, e.time, e.kind),
          status: 'ended',
          taskId: e.taskId,
          reward: e.reward,
          success: e.success ?? null,
          calls: e.calls,
          finishedAt: e.time,
        };
        if (e.codeVersion !== undefined) row.codeVersion = e.codeVersion;
        this.finish(row, out);
        break;
      }
      case 'episode_aborted':
      case 'episode_expired':
        this.finish(
          {
            ...this.base(e.episodeId, e.clientId, e.time),
            status: e.type === 'episode_aborted' ? 'aborted' : 'expired',
            calls: e.calls,
            finishedAt: e.time,
          },
          out,
        );
        break;
      case 'step':
        this.stepped(e, out);
        break;
      case 'eval_result':
        this.evaluated(e, out);
        break;
      default:
        break;
    }
    return out;
  }

  private started(e: EventOf<'episode_started'>, out: FoldOutput): void {
    this.lastStepAt ??= e.time;
    const row: EpisodeInput = {
      episodeId: e.episodeId,
      kind: e.kind,
      status: 'open',
      taskId: e.taskId ?? null,
      clientId: e.clientId,
      codeVersion: e.codeVersion ?? null,
      role: e.role ?? null,
      reward: null,
      success: null,
      calls: 0,
      createdAt: e.time,
      finishedAt: null,
    };
    this.open.set(e.episodeId, row);
    out.episodes.push(row);
  }

  private stepped(e: EventOf<'step'>, out: FoldOutput): void {
    const updateStart = e.time - e.metrics.seconds * 1000;
    // A step without merge statistics (a worker older than the field) is charted as is.
    this.chart(
      {
        metrics: e.metrics,
        time: e.time,
        rolloutS: Math.max(0, (updateStart - (this.lastStepAt ?? updateStart)) / 1000),
      },
      e.merge ?? null,
      out,
    );
    this.lastStepAt = e.time;
    out.session = { step: e.metrics.step, weightVersion: e.metrics.weightVersion };
    out.trained.push(...(e.episodeIds ?? []));
  }

  private evaluated(e: EventOf<'eval_result'>, out: FoldOutput): void {
    const r = e.result;
    // One point per weight version: the running figures, keyed by the time of its first result.
    const time = this.evalTimes.get(r.weightVersion) ?? e.time;
    this.evalTimes.set(r.weightVersion, time);
    out.evals.push({
      weightVersion: r.weightVersion,
      time,
      episodes: r.episodes,
      rewardMean: r.rewardMean,
      successRate: r.successRate,
    });
  }

  /**
   * An update that trained nothing (every group's rewards equal) keeps the step number; it is
   * charted only while no trained update holds that step, so it never hides a real one.
   */
  private chart(p: FoldedStep, merge: StepMerge | null, out: FoldOutput): void {
    const trained = p.metrics.loss !== null;
    if (!trained && this.lastTrainedStep === p.metrics.step) return;
    if (trained) this.lastTrainedStep = p.metrics.step;
    out.steps.push(toStepPoint(p, merge));
  }

  private base(episodeId: string, clientId: string, time: number, kind: EpisodeInput['kind'] = 'train'): EpisodeInput {
    return (
      this.open.get(episodeId) ?? {
        episodeId,
        kind,
        status: 'open',
        taskId: null,
        clientId,
        codeVersion: null,
        role: null,
        reward: null,
        success: null,
        calls: 0,
        createdAt: time,
        finishedAt: null,
      }
    );
  }

  private finish(row: EpisodeInput, out: FoldOutput): void {
    this.open.delete(row.episodeId);
    out.episodes.push(row);
    out.finished.push(row.episodeId);
  }
}

export function toStepPoint(p: FoldedStep, merge: StepMerge | null): StepPoint {
  const m = p.metrics;
  return {
    step: m.step,
    weightVersion: m.weightVersion,
    time: p.time,
    episodes: m.episodes,
    rewardMean: m.rewardMean,
    rewardMin: m.rewardMin ?? m.rewardMean,
    rewardMax: m.rewardMax ?? m.rewardMean,
    successRate: m.successRate,
    samples: m.samples,
    tokensBefore: merge?.tokensBefore ?? 0,
    tokensAfter: merge?.tokensAfter ?? 0,
    compressionRatio: merge?.compressionRatio ?? 1,
    samplesPerEpisode:
      merge && merge.episodes > 0 ? merge.samplesOut / merge.episodes : m.episodes > 0 ? m.samples / m.episodes : 0,
    rolloutS: p.rolloutS,
    updateS: m.seconds,
    loss: m.loss,
    entropy: m.entropy,
    approxKl: m.approxKl,
    clipFraction: m.clipFraction,
    klLoss: m.klLoss,
    breakCounts: merge?.breakCounts ?? {},
    ...(m.serving ? { serving: m.serving } : {}),
    ...(m.health ? { health: m.health } : {}),
    ...(m.distillReverseKl !== undefined ? { distillReverseKl: m.distillReverseKl } : {}),
    ...(m.distillTopKl !== undefined ? { distillTopKl: m.distillTopKl } : {}),
    ...(m.distillKept !== undefined ? { distillKept: m.distillKept } : {}),
  };
}
