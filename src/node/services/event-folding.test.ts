import { describe, expect, it } from 'vitest';
import type { SwarmEvent, SwarmEventBody } from '../../shared/swarm-events';
import type { StepMetrics } from '../../shared/swarm-protocol';
import { EventFolder } from './event-folding';

let seq = 0;
const ev = (time: number, body: SwarmEventBody): SwarmEvent => ({ ...body, seq: ++seq, time });

const metrics = (step: number, seconds: number): StepMetrics => ({
  step,
  weightVersion: step,
  episodes: 4,
  tasks: 2,
  rewardMean: 0.5,
  rewardMin: 0,
  rewardMax: 1,
  successRate: 0.5,
  samples: 4,
  droppedZeroAdvantage: 0,
  droppedStale: 0,
  maxStaleness: 0,
  loss: 0.1,
  pgLoss: 0.1,
  klLoss: 0,
  clipFraction: 0,
  approxKl: 0.01,
  entropy: 1.2,
  gradNorm: 1,
  trainedTokens: 10,
  seconds,
});

const merge = {
  episodes: 4,
  callsIn: 8,
  samplesOut: 6,
  tokensBefore: 800,
  tokensAfter: 400,
  tokensTrained: 100,
  compressionRatio: 2,
  breakCounts: { token_drift: 1 },
};
const step = (m: StepMetrics): SwarmEventBody => ({ type: 'step', metrics: m, merge, episodeIds: ['e0', 'e1'] });

describe('EventFolder', () => {
  it('charts a step with its merge stats, splits the step time into rollout and update, and names its episodes', () => {
    const f = new EventFolder();
    f.fold(ev(1000, { type: 'episode_started', episodeId: 'e0', clientId: 'c', kind: 'train', weightVersion: 0 }));
    f.fold(ev(2000, { type: 'episode_started', episodeId: 'e1', clientId: 'c', kind: 'train', weightVersion: 0 }));
    const b = f.fold(ev(11_000, step(metrics(1, 2))));
    expect(b.session).toEqual({ step: 1, weightVersion: 1 });
    expect(b.steps).toHaveLength(1);
    expect(b.steps[0]).toMatchObject({
      step: 1,
      rewardMin: 0,
      rewardMax: 1,
      tokensBefore: 800,
      tokensAfter: 400,
      compressionRatio: 2,
      samplesPerEpisode: 1.5,
      updateS: 2,
      breakCounts: { token_drift: 1 },
    });
    expect(b.steps[0]!.rolloutS).toBeCloseTo(8);
    expect(b.trained).toEqual(['e0', 'e1']);
    const c = f.fold(ev(20_000, step(metrics(2, 1))));
    expect(c.steps[0]!.rolloutS).toBeCloseTo(8);
  });

  it("carries a distilling step's reverse KL to the teacher into its chart point (absent otherwise)", () => {
    const f = new EventFolder();
    expect(f.fold(ev(1000, step({ ...metrics(1, 1), distillReverseKl: 0.3 }))).steps[0]!.distillReverseKl).toBe(0.3);
    expect(f.fold(ev(2000, step(metrics(2, 1)))).steps[0]).not.toHaveProperty('distillReverseKl');
    const top = f.fold(ev(3000, step({ ...metrics(3, 1), distillReverseKl: 0.1, distillTopKl: 0.7 }))).steps[0]!;
    expect(top.distillTopKl).toBe(0.7); // --distill-top-k: the term the step trained on, beside the estimate
    const kept = f.fold(ev(4000, step({ ...metrics(4, 1), distillReverseKl: 0.1, distillKept: 0.5 }))).steps[0]!;
    expect(kept.distillKept).toBe(0.5); // --distill-keep: the fraction of the samples that trained
    expect(top.distillReverseKl).toBe(0.1);
  });

  it('counts no rollout time for a first step without episode starts (attached mid-run)', () => {
    const f = new EventFolder();
    expect(f.fold(ev(5000, step(metrics(4, 1)))).steps[0]!.rolloutS).toBe(0);
  });

  it('charts an update that trained nothing, unless a trained update holds its step number', () => {
    const f = new EventFolder();
    const idle = (n: number): StepMetrics => ({ ...metrics(n, 1), weightVersion: n, loss: null, samples: 0 });
    expect(f.fold(ev(1000, step(idle(0)))).steps.map((s) => [s.step, s.loss])).toEqual([[0, null]]);
    expect(f.fold(ev(2000, step(metrics(1, 1)))).steps.map((s) => [s.step, s.loss])).toEqual([[1, 0.1]]);
    expect(f.fold(ev(3000, step(idle(1)))).steps).toEqual([]);
  });

  it('charts a step without merge stats (a worker older than the field) with neutral merge figures', () => {
    const f = new EventFolder();
    const next = f.fold(ev(9000, { type: 'step', metrics: metrics(2, 1) }));
    expect(next.steps.map((s) => [s.step, s.compressionRatio, s.tokensBefore])).toEqual([[2, 1, 0]]);
    expect(next.trained).toEqual([]);
  });

  it('follows an episode from start to end, keeping what the start said', () => {
    const f = new EventFolder();
    const s = f.fold(
      ev(100, {
        type: 'episode_started',
        episodeId: 'e1',
        clientId: 'c',
        kind: 'eval',
        taskId: 't1',
        codeVersion: 'abc',
        role: 'solver',
        weightVersion: 0,
      }),
    );
    expect(s.episodes[0]).toMatchObject({
      status: 'open',
      kind: 'eval',
      codeVersion: 'abc',
      role: 'solver',
      createdAt: 100,
    });
    const e = f.fold(
      ev(300, {
        type: 'episode_ended',
        episodeId: 'e1',
        clientId: 'c',
        kind: 'eval',
        taskId: 't1',
        reward: 1,
        success: true,
        calls: 3,
        pooled: false,
      }),
    );
    expect(e.episodes[0]).toMatchObject({
      status: 'ended',
      kind: 'eval',
      codeVersion: 'abc',
      role: 'solver',
      createdAt: 100,
      finishedAt: 300,
      reward: 1,
      success: true,
      calls: 3,
    });
    expect(e.finished).toEqual(['e1']);
    const a = f.fold(ev(400, { type: 'episode_aborted', episodeId: 'e2', clientId: 'c', reason: 'crash', calls: 1 }));
    expect(a.episodes[0]).toMatchObject({ status: 'aborted', kind: 'train', role: null, createdAt: 400, calls: 1 });
    const x = f.fold(ev(500, { type: 'episode_expired', episodeId: 'e3', clientId: 'c', idleS: 30, calls: 0 }));
    expect(x.episodes[0]!.status).toBe('expired');
  });

  it('keeps one eval point per weight version, updated in place', () => {
    const f = new EventFolder();
    const a = f.fold(
      ev(100, { type: 'eval_result', result: { weightVersion: 0, episodes: 1, rewardMean: 1, successRate: 1 } }),
    );
    const b = f.fold(
      ev(200, { type: 'eval_result', result: { weightVersion: 0, episodes: 2, rewardMean: 0.5, successRate: 0.5 } }),
    );
    expect(a.evals[0]!.time).toBe(100);
    expect(b.evals[0]).toEqual({ weightVersion: 0, time: 100, episodes: 2, rewardMean: 0.5, successRate: 0.5 });
  });

  it('reports state and batch progress as session patches', () => {
    const f = new EventFolder();
    expect(f.fold(ev(1, { type: 'state', state: 'updating', step: 3, weightVersion: 3 })).session).toEqual({
      state: 'updating',
      step: 3,
      weightVersion: 3,
    });
    const progress = {
      strategy: 'C2' as const,
      ready: false,
      current: 1,
      target: 2,
      unit: 'tasks' as const,
      detail: '1/2 tasks',
    };
    expect(f.fold(ev(2, { type: 'batch_progress', progress, poolEpisodes: 5 })).session).toEqual({
      progress,
      poolEpisodes: 5,
    });
  });
});
