// On-policy distillation's per-token advantages (docs/learned-rewards.md, "On-policy distillation").
// The student samples; the teacher scores each sampled token; the signal on token t is the negative
// per-token reverse KL estimate −(log π_student(x_t) − log π_teacher(x_t)), mixed with the task
// advantage by a weight w: A_t = (1 − w)·A_task,t + w·(log π_teacher(x_t) − log π_student(x_t)).
// The student's logprob is the rollout's (the sampling policy's, raw: temperature 1), so w = 1 is
// pure distillation and w = 0 ignores the teacher. With the teacher's top-k (`topK`: a dense signal at
// every trained token), the engine trains the teacher term itself (a KL on the k tokens, weighted by w:
// agentjet_engine/distill.py) and the advantage keeps only (1 − w)·A_task; the sampled-token estimate
// is still reported. Pure: numbers in, numbers out.

export interface DistillTokens {
  lossMask: readonly (0 | 1)[];
  /** The task advantage: one per sample, or one per token. */
  advantages: number | readonly number[];
  /** The student's logprob of each token as sampled (read where the mask is 1). */
  rolloutLogprobs: readonly number[];
}

export interface DistillFigures {
  /** Masked tokens scored. */
  tokens: number;
  /** Σ over masked tokens of log π_student − log π_teacher (the reverse-KL estimate's sum). */
  reverseKlSum: number;
  /** Σ over masked tokens of |log π_student − log π_teacher|: how much the teacher disagrees. */
  absKlSum: number;
}

/**
 * Per-token advantages of one sample mixed with the teacher's signal (0 on unmasked tokens); with
 * `topK` the teacher's part is left to the engine's top-k term, and only (1 − w)·task remains.
 */
export function distillAdvantages(
  sample: DistillTokens,
  teacherLogprobs: readonly number[],
  weight: number,
  topK = false,
): { advantages: number[]; figures: DistillFigures } {
  const n = sample.lossMask.length;
  if (teacherLogprobs.length !== n || sample.rolloutLogprobs.length !== n)
    throw new Error(
      `teacher logprobs (${teacherLogprobs.length}) and rollout logprobs (${sample.rolloutLogprobs.length}) ` +
        `must have one entry per token (${n})`,
    );
  if (!(weight >= 0 && weight <= 1)) throw new Error(`distillation weight ${weight} is not in [0, 1]`);
  const task = (t: number): number =>
    typeof sample.advantages === 'number' ? sample.advantages : (sample.advantages[t] ?? 0);
  const advantages = new Array<number>(n).fill(0);
  let tokens = 0;
  let reverseKlSum = 0;
  let absKlSum = 0;
  for (let t = 0; t < n; t++) {
    if (sample.lossMask[t] !== 1) continue;
    const kl = sample.rolloutLogprobs[t]! - teacherLogprobs[t]!;
    if (!Number.isFinite(kl)) throw new Error(`token ${t}: non-finite logprob (student − teacher = ${kl})`);
    advantages[t] = (1 - weight) * task(t) - (topK ? 0 : weight * kl);
    tokens++;
    reverseKlSum += kl;
    absKlSum += Math.abs(kl);
  }
  return { advantages, figures: { tokens, reverseKlSum, absKlSum } };
}

/**
 * Which samples a distilling update trains when it keeps a fraction `keep` (0 < keep ≤ 1) of them:
 * the ⌈keep·n⌉ where the teacher disagrees most per trained token (mean |log π_student − log
 * π_teacher|: where the teacher's signal is strong; a sample where student and teacher agree moves the
 * weights little and costs a full forward/backward). Indices in input order; a sample without trained
 * tokens ranks last; ties keep input order.
 */
export function mostDisagreeing(figures: readonly DistillFigures[], keep: number): number[] {
  if (!(keep > 0 && keep <= 1)) throw new Error(`distillation keep fraction ${keep} is not in (0, 1]`);
  const n = figures.length;
  const count = Math.min(n, Math.ceil(keep * n - 1e-9));
  if (count >= n) return figures.map((_, i) => i);
  const density = (f: DistillFigures): number => (f.tokens > 0 ? f.absKlSum / f.tokens : -1);
  const ranked = figures.map((f, i) => ({ i, d: density(f) })).sort((a, b) => b.d - a.d || a.i - b.i);
  return ranked
    .slice(0, count)
    .map((r) => r.i)
    .sort((a, b) => a - b);
}

/** Mean reverse-KL estimate over several samples' figures (0 when no token was scored). */
export function meanReverseKl(figures: readonly DistillFigures[]): number {
  const tokens = figures.reduce((s, f) => s + f.tokens, 0);
  return tokens === 0 ? 0 : figures.reduce((s, f) => s + f.reverseKlSum, 0) / tokens;
}

/**
 * Splits sequences into batches of at most `maxTokens` tokens each (a longer sequence alone), in
 * order: what one teacher request carries.
 */
export function batchByTokens<T extends { tokenIds: readonly number[] }>(
  items: readonly T[],
  maxTokens: number,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    if (current.length > 0 && size + item.tokenIds.length > maxTokens) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += item.tokenIds.length;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
