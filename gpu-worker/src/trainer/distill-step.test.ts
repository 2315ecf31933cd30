import { describe, expect, it } from 'vitest';
import type { LogprobsSequence, TrainSample } from '../../../src/shared/engine-protocol';
import { withTeacher } from './distill-step';
import type { Teacher, TeacherScores } from './teacher';

/** A fake teacher: logprob −0.5 for every token; with top-k, tokens 0..k−1 at logprobs −1, −2, … */
class FakeTeacher implements Teacher {
  readonly url = 'http://fake-teacher';
  constructor(readonly topK: number) {}
  async score(sequences: readonly LogprobsSequence[]): Promise<TeacherScores[]> {
    return sequences.map((s) => {
      const logprobs = s.tokenIds.map((_, t) => (t === 0 ? 0 : -0.5));
      if (this.topK === 0) return { logprobs };
      const row = (t: number): number[] => (t === 0 ? [] : Array.from({ length: this.topK }, (_, k) => k));
      const lps = (t: number): number[] => (t === 0 ? [] : Array.from({ length: this.topK }, (_, k) => -(k + 1)));
      return { logprobs, top: { ids: s.tokenIds.map((_, t) => row(t)), logprobs: s.tokenIds.map((_, t) => lps(t)) } };
    });
  }
}

const sample: TrainSample = {
  tokenIds: [5, 6, 7, 8],
  lossMask: [0, 0, 1, 1],
  advantages: 2,
  rolloutLogprobs: [0, -1, -0.25, -1.5],
};

describe('withTeacher', () => {
  it("puts the sampled tokens' signal in the advantages without top-k", async () => {
    const d = await withTeacher([sample], new FakeTeacher(0), 0.5);
    // (1 − w)·task − w·(student − teacher) on masked tokens: 0.5·2 − 0.5·(−0.25 + 0.5), 0.5·2 − 0.5·(−1.5 + 0.5)
    expect(d.samples[0]!.advantages).toEqual([0, 0, 0.875, 1.5]);
    expect(d.samples[0]!.teacherTop).toBeUndefined();
    expect(d.distillCoef).toBe(0);
    expect(d.reverseKl).toBeCloseTo((0.25 - 1) / 2);
  });

  it("hands the engine the teacher's top-k on the trained tokens, and keeps only the task part", async () => {
    const d = await withTeacher([sample], new FakeTeacher(3), 0.25);
    const s = d.samples[0]!;
    expect(s.advantages).toEqual([0, 0, 1.5, 1.5]); // (1 − w)·task
    expect(s.teacherTop).toEqual({
      ids: [[], [], [0, 1, 2], [0, 1, 2]],
      logprobs: [[], [], [-1, -2, -3], [-1, -2, -3]],
    });
    expect(d.distillCoef).toBe(0.25);
    expect(d.reverseKl).toBeCloseTo((0.25 - 1) / 2); // still reported from the sampled tokens
  });

  it('with keep < 1 trains only the samples where the teacher disagrees most, in input order', async () => {
    // The fake teacher says −0.5 everywhere: mean |student − teacher| per trained token is 0, 1 and 0.5.
    const agree: TrainSample = { ...sample, rolloutLogprobs: [0, 0, -0.5, -0.5] };
    const far: TrainSample = { ...sample, rolloutLogprobs: [0, 0, -1.5, -1.5] };
    const near: TrainSample = { ...sample, rolloutLogprobs: [0, 0, -1, -1] };
    const d = await withTeacher([agree, far, near], new FakeTeacher(0), 1, 0.5);
    expect(d.kept).toEqual([1, 2]);
    expect(d.samples.map((s) => s.rolloutLogprobs)).toEqual([far.rolloutLogprobs, near.rolloutLogprobs]);
    expect(d.samples[0]!.advantages).toEqual([0, 0, 1, 1]);
    // The reverse-KL estimate stays over every scored sample: (0 − 2·1 − 2·0.5) / 6 tokens.
    expect(d.reverseKl).toBeCloseTo((0 - 2 - 1) / 6);
    expect((await withTeacher([agree, far, near], new FakeTeacher(0), 1)).kept).toEqual([0, 1, 2]);
  });
});
