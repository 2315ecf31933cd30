import { describe, expect, it } from 'vitest';
import type { StepPoint } from '../../../shared/workbench-api';
import { stepPoint } from '../test-fixtures';
import { healthRows } from './health';

const point = (step: number, health?: StepPoint['health']): StepPoint =>
  stepPoint(step, { time: step, clipFraction: 0.1, klLoss: 0.02, ...(health ? { health } : {}) });

const health = (syncMs: number | null): NonNullable<StepPoint['health']> => ({
  stalenessMean: 0.4,
  stalenessMax: 1,
  stalenessHistogram: [6, 4],
  stalenessBound: 1,
  droppedOverBound: 3,
  mismatchKl: 0.003,
  correctedFraction: 0.05,
  correction: 'tis',
  genBusyFraction: 0.9,
  genIdleWaitFraction: 0.02,
  trainerBusyFraction: 0.3,
  syncMs,
  replicas: [],
});

describe('healthRows', () => {
  it('charts the steps with health figures, with the clip fraction and KL to the reference', () => {
    const rows = healthRows([point(1), point(2, health(12.5)), point(3, health(null))]);
    expect(rows.map((r) => r.step)).toEqual([2, 3]);
    expect(rows[0]).toMatchObject({
      stalenessMean: 0.4,
      stalenessMax: 1,
      stalenessBound: 1,
      droppedOverBound: 3,
      mismatchKl: 0.003,
      klToRef: 0.02,
      clipped: 0.1,
      corrected: 0.05,
      genBusy: 0.9,
      trainerBusy: 0.3,
      genIdleWait: 0.02,
      syncMs: 12.5,
    });
    expect(rows[1]!.syncMs).toBeNull();
    expect(rows[0]!.distillKl).toBeNull(); // not distilling
    expect(rows[0]!.distillTopKl).toBeNull();
  });

  it("charts a distilling run's reverse KL to the teacher", () => {
    const [row] = healthRows([{ ...point(1, health(1)), distillReverseKl: 0.25 }]);
    expect(row!.distillKl).toBe(0.25);
    const [top] = healthRows([{ ...point(1, health(1)), distillReverseKl: 0.25, distillTopKl: 0.9 }]);
    expect(top!.distillTopKl).toBe(0.9); // distilling the teacher's top-k
    expect(top!.distillKl).toBe(0.25);
  });
});
