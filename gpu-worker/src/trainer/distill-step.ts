// The distillation hook of a training step: the teacher scores every trained sample's tokens (one
// batched request per ~16k tokens) and each masked token's advantage becomes the mix of the task
// advantage and the teacher's signal (src/shared/distill.ts). The samples keep their layout (tree
// samples are scored as trees), their rollout logprobs and weights: only `advantages` changes.
import { distillAdvantages, meanReverseKl } from '../../../src/shared/distill';
import type { LogprobsSequence, TrainSample } from '../../../src/shared/engine-protocol';
import type { Teacher } from './teacher';

export interface Distilled {
  samples: TrainSample[];
  /** Mean over the trained tokens of log π_student − log π_teacher (the reverse-KL estimate). */
  reverseKl: number;
}

/** What the teacher scores of a sample: its tokens and, for a prefix tree, its layout. */
export const teacherSequence = (s: TrainSample): LogprobsSequence => ({
  tokenIds: s.tokenIds,
  ...(s.parents ? { parents: s.parents } : {}),
  ...(s.positions ? { positions: s.positions } : {}),
});

export async function withTeacher(
  samples: readonly TrainSample[],
  teacher: Teacher,
  weight: number,
): Promise<Distilled> {
  const teacherLogprobs = await teacher.logprobs(samples.map(teacherSequence));
  const scored = samples.map((s, i) => distillAdvantages(s, teacherLogprobs[i] ?? [], weight));
  return {
    samples: samples.map((s, i) => ({ ...s, advantages: scored[i]!.advantages })),
    reverseKl: meanReverseKl(scored.map((x) => x.figures)),
  };
}
