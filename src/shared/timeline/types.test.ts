// Tests of the timeline and sample schemas: defaults, span coverage and sample consistency.
import { describe, expect, it } from 'vitest';
import {
  LinearSampleSchema,
  MergedSampleSchema,
  MergeOptionsSchema,
  TimelineSchema,
  type TimelineInput,
} from './types';
import { conversation, say } from './testing/scenes';
import { mergeTimelines } from './merge';

const [call] = conversation('e', [{ reply: say('one') }]);
if (call === undefined) throw new Error('no call');

describe('TimelineSchema', () => {
  it('accepts a recorded call and defaults agent and tools', () => {
    const { agent: _agent, tools: _tools, ...rest } = call;
    const input: TimelineInput = rest;
    const parsed = TimelineSchema.parse(input);
    expect(parsed.agent).toBe('default');
    expect(parsed.tools).toBeNull();
    expect(TimelineSchema.parse(JSON.parse(JSON.stringify(call)))).toEqual(call);
  });

  it('rejects spans that do not cover the prompt, and mismatched logprobs', () => {
    const spans = call.promptSpans;
    expect(TimelineSchema.safeParse({ ...call, promptSpans: spans.slice(0, -1) }).success).toBe(false);
    expect(TimelineSchema.safeParse({ ...call, promptSpans: spans.slice(1) }).success).toBe(false);
    expect(TimelineSchema.safeParse({ ...call, promptSpans: [...spans.slice(0, 1), ...spans.slice(2)] }).success).toBe(
      false,
    );
    expect(TimelineSchema.safeParse({ ...call, outputLogprobs: [] }).success).toBe(false);
    expect(TimelineSchema.safeParse({ ...call, output: { role: 'user', content: 'x' } }).success).toBe(false);
    expect(TimelineSchema.safeParse({ ...call, promptIds: [] }).success).toBe(false);
  });
});

describe('sample schemas', () => {
  const [sample] = mergeTimelines([call], { mode: 'linear', level: 'token' }).samples;
  if (sample?.kind !== 'linear') throw new Error('no sample');

  it('round-trips merged samples through JSON', () => {
    expect(MergedSampleSchema.parse(JSON.parse(JSON.stringify(sample)))).toEqual(sample);
  });

  it('rejects masks that the spans do not explain', () => {
    const lossMask = sample.lossMask.map((m, i) => (i === 1 ? 1 : m));
    expect(LinearSampleSchema.safeParse({ ...sample, lossMask }).success).toBe(false);
    expect(LinearSampleSchema.safeParse({ ...sample, spans: [] }).success).toBe(false);
    expect(LinearSampleSchema.safeParse({ ...sample, rolloutLogprobs: sample.rolloutLogprobs.slice(1) }).success).toBe(
      false,
    );
  });

  it('defaults the merge options', () => {
    expect(MergeOptionsSchema.parse({})).toEqual({ mode: 'linear', level: 'token' });
  });
});
