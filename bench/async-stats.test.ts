import { describe, expect, it } from 'vitest';
import type { StepMetrics } from '../src/shared/swarm-protocol';
import { diffInSe, projectGain, summarizeArm } from './async-stats';

const step = (i: number, health: Partial<NonNullable<StepMetrics['health']>>): StepMetrics =>
  ({
    step: i,
    weightVersion: i,
    samples: 8,
    droppedStale: i === 2 ? 1 : 0,
    maxStaleness: 0,
    approxKl: 0.5,
    seconds: 2,
    health: {
      stalenessMean: 0.5,
      stalenessMax: i,
      stalenessHistogram: [],
      mismatchKl: 0.01,
      correctedFraction: 0.1,
      correction: 'tis',
      genBusyFraction: i === 1 ? 0 : 0.8,
      genIdleWaitFraction: i === 1 ? 1 : 0.05,
      trainerBusyFraction: 0.3,
      syncMs: 10 * i,
      replicas: [],
      ...health,
    },
  }) as StepMetrics;

describe('async bench figures', () => {
  it('summarises an arm, leaving the first step out of the busy fractions', () => {
    const s = summarizeArm('c', [step(1, {}), step(2, {}), step(3, {})], 30, 2);
    expect(s.episodesPerMin).toBe(15);
    expect(s.updatesPerMin).toBe(1.5);
    expect(s.stalenessMax).toBe(3);
    expect(s.genIdle).toBeCloseTo(0.05);
    expect(s.genBusy).toBeCloseTo(0.8);
    expect(s.syncMs).toBeCloseTo(20);
    expect(s.droppedStale).toBe(1);
  });

  it('does not count a step that trained nothing as an update', () => {
    const empty = { ...step(4, {}), samples: 0 };
    expect(summarizeArm('c', [step(1, {}), step(2, {}), empty], 30, 2).updatesPerMin).toBe(1);
  });

  it('gives the difference of two success rates in standard errors', () => {
    expect(diffInSe({ rate: 0.5, n: 200 }, { rate: 0.5, n: 200 })).toBe(0);
    expect(diffInSe({ rate: 0.4, n: 200 }, { rate: 0.5, n: 200 })).toBeCloseTo(0.1 / Math.hypot(0.03464, 0.03536), 2);
  });

  it('projects the overlap gain: bounded by the update share, cut by the sync', () => {
    const p = projectGain({ genS: 6, trainS: 2, syncS: 0 }, 8, 2);
    expect(p.syncStepS).toBeCloseTo(1);
    expect(p.asyncStepS).toBeCloseTo(1); // gen 6/6 = 1, train 2/2 = 1
    expect(projectGain({ genS: 6, trainS: 2, syncS: 0.5 }, 8, 2).gain).toBeCloseTo(1 / 1.5);
  });
});
