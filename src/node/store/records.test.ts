import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeTimelines, type MergedSample, type Timeline } from '../../shared/timeline';
import { episodesArb } from '../../shared/timeline/testing/episodes';
import { conversation, say } from '../../shared/timeline/testing/scenes';
import { encodeUint32 } from './codec';
import { recordsToTimelines, recordToSample, sampleToRecord, timelinesToRecords } from './records';

/** What a stored timeline reads back as: logprobs at float32 precision, everything else exact. */
const asStored = (t: Timeline): Timeline => ({ ...t, outputLogprobs: t.outputLogprobs.map((x) => Math.fround(x)) });
const sampleAsStored = (s: MergedSample): MergedSample => ({
  ...s,
  rolloutLogprobs: s.rolloutLogprobs.map((x) => Math.fround(x)),
});

function longConversation(calls: number): Timeline[] {
  return conversation(
    'e',
    Array.from({ length: calls }, (_, k) => ({
      reply: say(`step ${k} of the long conversation`, ['calc', `{"expression":"${k}+1"}`]),
    })),
  );
}

describe('records', () => {
  it('round-trips the timelines of simulated episodes, in any order', () => {
    fc.assert(
      fc.property(episodesArb(2, 8), fc.boolean(), (timelines, reversed) => {
        const given = reversed ? [...timelines].reverse() : timelines;
        expect(recordsToTimelines(timelinesToRecords(given))).toEqual(given.map(asStored));
      }),
      { numRuns: 60 },
    );
  });

  it('stores each call only after the prompt prefix it shares with an earlier call', () => {
    const calls = longConversation(20);
    const rows = timelinesToRecords(calls);
    const stored = rows.reduce((n, r) => n + r.prompt_ids.byteLength, 0);
    const full = calls.reduce((n, t) => n + 4 * t.promptIds.length, 0);
    const last = calls.at(-1)!;
    // Linear in the conversation: not much more than the last prompt, far below the sum of all.
    expect(stored).toBeLessThan(4 * last.promptIds.length + 4 * 20 * 8);
    expect(stored * 5).toBeLessThan(full);
    expect(rows[0]).toMatchObject({ prompt_base: null, prompt_shared: 0, messages_shared: 0, spans_shared: 0 });
    expect(rows[5]?.spans_shared).toBeGreaterThan(0);
    expect(rows[5]?.prompt_base).toBe(4);
    expect(rows[5]?.messages_shared).toBe(calls[4]?.messages.length);
    expect(recordsToTimelines(rows)).toEqual(calls.map(asStored));
  });

  it('round-trips linear and tree samples', () => {
    fc.assert(
      fc.property(episodesArb(2, 8), fc.constantFrom('linear' as const, 'tree' as const), (timelines, mode) => {
        const { samples } = mergeTimelines(timelines, { mode, level: 'token', taskIds: { e0: 'task-0' } });
        for (const s of samples) expect(recordToSample(sampleToRecord(s))).toEqual(sampleAsStored(s));
      }),
      { numRuns: 40 },
    );
  });

  it('stores token ids in 4 bytes each', () => {
    const [t] = conversation('e', [{ reply: say('the answer') }]);
    if (t === undefined) throw new Error('no call');
    expect(timelinesToRecords([t])[0]?.prompt_ids.byteLength).toBe(4 * t.promptIds.length);
  });

  it('rejects damaged rows with an error naming the timeline', () => {
    const calls = longConversation(3);
    const rows = timelinesToRecords(calls);
    const [first, second] = rows as [(typeof rows)[0], (typeof rows)[0]];
    expect(() =>
      recordsToTimelines([{ ...first, output_ids: encodeUint32(Array.from({ length: 99 }, () => 5)) }]),
    ).toThrow(/stored timeline e-0 is damaged/);
    expect(() => recordsToTimelines([{ ...first, prompt_ids: 'nope' }])).toThrow();
    expect(() => recordsToTimelines([second])).toThrow(/e-1 is damaged: its prompt base 0 is not an earlier row/);
    expect(() => recordsToTimelines([first, { ...second, prompt_shared: 10_000 }])).toThrow(
      /shares more than its base holds/,
    );
    expect(() => recordsToTimelines([{ ...first, messages: '{oops' }])).toThrow(/messages is not valid JSON/);
    const [s] = mergeTimelines(calls, { mode: 'linear', level: 'token' }).samples;
    if (s === undefined) throw new Error('no sample');
    expect(() => recordToSample({ ...sampleToRecord(s), length: s.tokenIds.length + 1 })).toThrow();
  });
});
