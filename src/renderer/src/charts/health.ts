// Chart rows of the run-health view (issue #21): per step, the staleness of the trained tokens, the
// behaviour-vs-trainer mismatch KL and the KL to the reference, the PPO-clipped and correction-touched
// shares of tokens, generation and trainer busy shares, the share of time generation waited for an
// update, and the weight-sync time; the staleness bound the update held its episodes to and how many it
// dropped for exceeding it. Steps without health figures (older workers) are skipped.
import type { StepPoint } from '../../../shared/workbench-api';
import { downsample } from './series';

export interface HealthRow {
  step: number;
  stalenessMean: number;
  stalenessMax: number;
  /** The bound applied at training time and the episodes dropped over it (null from older workers). */
  stalenessBound: number | null;
  droppedOverBound: number | null;
  mismatchKl: number | null;
  klToRef: number | null;
  /** On-policy distillation's mean reverse KL to the teacher (null: not distilling). */
  distillKl: number | null;
  /** Distilling the teacher's top-k: the KL to its top-k distribution the step trained on (null: not). */
  distillTopKl: number | null;
  clipped: number | null;
  corrected: number | null;
  genBusy: number;
  trainerBusy: number;
  genIdleWait: number;
  syncMs: number | null;
}

export function healthRows(steps: readonly StepPoint[]): HealthRow[] {
  const rows: HealthRow[] = [];
  for (const p of steps) {
    const h = p.health;
    if (!h) continue;
    rows.push({
      step: p.step,
      stalenessMean: h.stalenessMean,
      stalenessMax: h.stalenessMax,
      stalenessBound: h.stalenessBound ?? null,
      droppedOverBound: h.droppedOverBound ?? null,
      mismatchKl: h.mismatchKl,
      klToRef: p.klLoss ?? null,
      distillKl: p.distillReverseKl ?? null,
      distillTopKl: p.distillTopKl ?? null,
      clipped: p.clipFraction ?? null,
      corrected: h.correctedFraction,
      genBusy: h.genBusyFraction,
      trainerBusy: h.trainerBusyFraction,
      genIdleWait: h.genIdleWaitFraction,
      syncMs: h.syncMs,
    });
  }
  return downsample(rows);
}
