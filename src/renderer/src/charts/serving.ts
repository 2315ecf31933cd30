// Chart rows of the engine's prefix KV cache per training step (the inference-side twin of the
// timeline-merging chart): prompt tokens the engine was asked for, how many it computed and how
// many it reused, and the token hit rate. Steps from workers without these figures are skipped.
import type { StepPoint } from '../../../shared/workbench-api';
import { downsample } from './series';

export interface ServingRow {
  step: number;
  promptTokens: number;
  prefilledTokens: number;
  reusedTokens: number;
  hitRate: number;
  meanBatch: number;
}

export function servingRows(steps: readonly StepPoint[]): ServingRow[] {
  const rows: ServingRow[] = [];
  for (const p of steps) {
    const s = p.serving;
    if (!s) continue;
    rows.push({
      step: p.step,
      promptTokens: s.promptTokens,
      prefilledTokens: s.prefilledTokens,
      reusedTokens: s.reusedTokens,
      hitRate: s.hitRate,
      meanBatch: s.meanBatch,
    });
  }
  return downsample(rows);
}
