// The distillation hook of a training step: the teacher scores every trained sample's tokens (one
// batched request per ~16k tokens) and each masked token's advantage becomes the mix of the task
// advantage and the teacher's signal (src/shared/distill.ts). With the teacher's top-k the samples
// carry it (`teacherTop`) and the engine trains the teacher term (`distillCoef` = the weight). The
// samples keep their layout (tree samples are scored as trees), their rollout logprobs and weights.
// With `keep` < 1 only that fraction of the samples trains: those where the teacher disagrees most per
// token (the scores are in before the update, so the skipped ones cost no forward/backward).
import { distillAdvantages, meanReverseKl, mostDisagreeing } from '../../../src/shared/distill';
import type { LogprobsSequence, TopLogprobs, TrainSample } from '../../../src/shared/engine-protocol';
import type { Teacher, TeacherScores } from './teacher';

export interface Distilled {
  /** The samples that train, in input order. */
  samples: TrainSample[];
  /** Their indices among the input samples (every index when `keep` is 1). */
  kept: number[];
  /** Mean over the scored tokens (every sample's, kept or not) of log π_student − log π_teacher. */
  reverseKl: number;
  /** The engine's weight on the teacher-top-k term (0: the teacher's signal is in the advantages). */
  distillCoef: number;
}

/** What the teacher scores of a sample: its tokens and, for a prefix tree, its layout. */
export const teacherSequence = (s: TrainSample): LogprobsSequence => ({
  tokenIds: s.tokenIds,
  ...(s.parents ? { parents: s.parents } : {}),
  ...(s.positions ? { positions: s.positions } : {}),
});

const topOf = (s: TeacherScores | undefined): TopLogprobs => {
  if (!s?.top) throw new Error('the teacher returned no top-k logprobs for a sequence it was asked them for');
  return s.top;
};

/** The teacher's top-k rows where the sample trains (empty rows elsewhere: the engine reads no others). */
const onMasked = (top: TopLogprobs, mask: readonly number[]): TopLogprobs => ({
  ids: top.ids.map((row, t) => (mask[t] === 1 ? row : [])),
  logprobs: top.logprobs.map((row, t) => (mask[t] === 1 ? row : [])),
});

export async function withTeacher(
  samples: readonly TrainSample[],
  teacher: Teacher,
  weight: number,
  keep = 1,
): Promise<Distilled> {
  const scores = await teacher.score(samples.map(teacherSequence));
  const topK = teacher.topK > 0;
  const scored = samples.map((s, i) => distillAdvantages(s, scores[i]?.logprobs ?? [], weight, topK));
  const kept = mostDisagreeing(
    scored.map((x) => x.figures),
    keep,
  );
  return {
    samples: kept.map((i) => {
      const s = samples[i]!;
      return {
        ...s,
        advantages: scored[i]!.advantages,
        ...(topK ? { teacherTop: onMasked(topOf(scores[i]), s.lossMask) } : {}),
      };
    }),
    kept,
    reverseKl: meanReverseKl(scored.map((x) => x.figures)),
    distillCoef: topK ? weight : 0,
  };
}
