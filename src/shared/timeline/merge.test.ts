// Example-based tests of linear merging: token vs text level, drifted re-tokenization, tool-call
// matching, every chain-break cause, and the `none` mode and task ids.
import { describe, expect, it } from 'vitest';
import { toolResult, user } from '../chat';
import { mergeTimelines } from './merge';
import { messagesEqual } from './message-key';
import type { LinearSample, MergedSample, Timeline } from './types';
import { TOOLS_B } from './testing/episodes';
import { IM_END, IM_START, NL, assistantBody, decode, fakeCall } from './testing/fake-chat';
import { checkTokenContext, checkTrainedOnce } from './testing/invariants';
import { ASK, SYS, conversation, historyAfter, say } from './testing/scenes';

const linear = (s: MergedSample | undefined): LinearSample => {
  if (s?.kind !== 'linear') throw new Error('expected a linear sample');
  return s;
};
const spanOf = (s: LinearSample, id: string): { start: number; end: number } => {
  const span = s.spans.find((x) => x.timelineId === id);
  if (span === undefined) throw new Error(`no span for ${id}`);
  return span;
};

describe('linear merging at token level', () => {
  it('absorbs each call into the next one whose prompt starts with its whole sequence', () => {
    const calls = conversation('e', [
      { reply: say('', ['calc', '{"expression":"12+34"}']) },
      { reply: say('then 46') },
      { reply: say('ok') },
    ]);
    const { samples, stats } = mergeTimelines(calls, { mode: 'linear', level: 'token' });
    expect(samples).toHaveLength(1);
    const s = linear(samples[0]);
    const last = calls[2] as Timeline;
    expect(s.tokenIds).toEqual([...last.promptIds, ...last.outputIds]);
    expect(s.absorbedTimelineIds).toEqual(calls.map((t) => t.id));
    expect(checkTrainedOnce(calls, samples)).toBe(calls.reduce((n, t) => n + t.outputIds.length, 0));
    checkTokenContext(calls, samples);
    const before = calls.reduce((n, t) => n + t.promptIds.length + t.outputIds.length, 0);
    expect(stats).toMatchObject({
      callsIn: 3,
      samplesOut: 1,
      tokensBefore: before,
      tokensAfter: s.tokenIds.length,
      breaks: [],
    });
    expect(stats.compressionRatio).toBeCloseTo(before / s.tokenIds.length);
  });

  it('breaks on re-tokenization drift (token_drift)', () => {
    const calls = conversation('e', [{ reply: say('the answer then'), driftSeed: 1 }, { reply: say('ok') }]);
    const { samples, stats } = mergeTimelines(calls, { mode: 'linear', level: 'token' });
    expect(samples).toHaveLength(2);
    expect(stats.breaks).toEqual([{ episodeId: 'e', timelineId: 'e-1', cause: 'token_drift' }]);
  });
});

describe('linear merging at text level', () => {
  it('merges across drifted re-tokenization and trains the sampled tokens, not the re-rendered ones', () => {
    const calls = conversation('e', [
      { reply: say('the answer then', ['calc', '{"expression":"12+34"}']), driftSeed: 1 },
      { reply: say('the sum is 46') },
    ]);
    const [a, b] = calls as [Timeline, Timeline];
    const rerendered = assistantBody(a.output);
    expect(a.outputIds.slice(0, -1)).not.toEqual(rerendered); // the drift is real
    const { samples, stats } = mergeTimelines(calls, { mode: 'linear', level: 'text' });
    expect(samples).toHaveLength(1);
    expect(stats.breaks).toEqual([]);
    const s = linear(samples[0]);
    const span = spanOf(s, a.id);
    expect(s.tokenIds.slice(span.start, span.end)).toEqual(a.outputIds);
    expect(s.rolloutLogprobs.slice(span.start, span.end)).toEqual(a.outputLogprobs);
    // B's header for the turn stays before the sampled tokens; the template's `\n` after them.
    expect(s.tokenIds.slice(span.start - 3, span.start)).toEqual([IM_START, 12, NL]);
    expect(s.tokenIds[span.end]).toBe(NL);
    expect(s.lossMask.slice(span.start - 3, span.start)).toEqual([0, 0, 0]);
    // Same text as B's sequence, different token count.
    expect(decode(s.tokenIds)).toBe(decode([...b.promptIds, ...b.outputIds]));
    expect(s.tokenIds.length).not.toBe(b.promptIds.length + b.outputIds.length);
    expect(checkTrainedOnce(calls, samples)).toBe(a.outputIds.length + b.outputIds.length);
  });

  it('does not match two tool-call turns with empty content but different tool calls', () => {
    const first = say('', ['calc', '{"expression":"1+1"}']);
    const other = say('', ['calc', '{"expression":"2+2"}']);
    expect(messagesEqual(first, other)).toBe(false);
    const [a] = conversation('e', [{ reply: first }]);
    if (a === undefined) throw new Error('no call');
    const b = fakeCall({
      id: 'e-1',
      episodeId: 'e',
      callIndex: 1,
      messages: [SYS, ASK, other, toolResult('call_0_calc', '4')],
      tools: a.tools,
      reply: say('4'),
    });
    const { samples, stats } = mergeTimelines([a, b], { mode: 'linear', level: 'text' });
    expect(samples).toHaveLength(2);
    expect(stats.breaks).toEqual([{ episodeId: 'e', timelineId: 'e-1', cause: 'rewritten_history' }]);
  });

  it('matches tool-call arguments as parsed JSON and null content as empty', () => {
    const [a] = conversation('e', [{ reply: say(null, ['calc', '{"a": 1, "b": [2, 3]}']) }]);
    if (a === undefined) throw new Error('no call');
    const echoed = say('', ['calc', '{"b":[2,3],"a":1.0}']);
    const b = fakeCall({
      id: 'e-1',
      episodeId: 'e',
      callIndex: 1,
      messages: [SYS, ASK, echoed, toolResult('call_0_calc', '4')],
      tools: a.tools,
      reply: say('4'),
    });
    expect(mergeTimelines([a, b], { mode: 'linear', level: 'text' }).samples).toHaveLength(1);
    // At token level the re-serialized arguments render differently.
    expect(mergeTimelines([a, b], { mode: 'linear', level: 'token' }).stats.breaks[0]?.cause).toBe('token_drift');
  });

  it('keeps the template closing after a truncated, drifted turn when another turn shows it', () => {
    const calls = conversation('e', [
      { reply: say('the answer') },
      { reply: say('then the answer is in here'), finishReason: 'length', keepTokens: 6, driftSeed: 2 },
      { reply: say('ok') },
    ]);
    const [, l, c] = calls as [Timeline, Timeline, Timeline];
    expect(l.outputIds).not.toEqual(
      assistantBody({ role: 'assistant', content: l.output.content }).slice(0, l.outputIds.length),
    );
    const s = linear(mergeTimelines(calls, { mode: 'linear', level: 'text' }).samples[0]);
    const span = spanOf(s, l.id);
    expect(s.tokenIds.slice(span.end, span.end + 2)).toEqual([IM_END, NL]);
    expect(decode(s.tokenIds)).toBe(decode([...c.promptIds, ...c.outputIds]));
  });

  it('drops the unknown closing of a lone truncated, drifted turn (no trailer)', () => {
    const calls = conversation('e', [
      { reply: say('then the answer is in here'), finishReason: 'length', keepTokens: 6, driftSeed: 2 },
      { reply: say('ok') },
    ]);
    const [l] = calls as [Timeline];
    const s = linear(mergeTimelines(calls, { mode: 'linear', level: 'text' }).samples[0]);
    const span = spanOf(s, l.id);
    expect(s.tokenIds.slice(span.start, span.end)).toEqual(l.outputIds);
    expect(s.tokenIds[span.end]).toBe(IM_START);
  });

  it('keeps the closing after a stop token the template does not render', () => {
    const calls = conversation('e', [
      { reply: say('the answer') },
      { reply: say('then 46'), stopToken: 4 },
      { reply: say('ok') },
    ]);
    const [, b] = calls as [Timeline, Timeline];
    const s = linear(mergeTimelines(calls, { mode: 'linear', level: 'text' }).samples[0]);
    const span = spanOf(s, b.id);
    expect(s.tokenIds.slice(span.end - 1, span.end + 2)).toEqual([4, IM_END, NL]);
  });

  it('breaks with token_drift when the turn header cannot be aligned', () => {
    const [a, b] = conversation('e', [{ reply: say('the answer') }, { reply: say('ok') }]) as [Timeline, Timeline];
    const header = b.promptSpans.find((sp) => sp.messageIndex === a.messages.length)?.start ?? 0;
    const promptIds = b.promptIds.map((id, i) => (i === header + 1 ? 99 : id));
    const { stats } = mergeTimelines([a, { ...b, promptIds }], { mode: 'linear', level: 'text' });
    expect(stats.breaks.map((x) => x.cause)).toEqual(['token_drift']);
  });
});

describe('chain breaks', () => {
  const causes = (calls: Timeline[], level: 'token' | 'text' = 'token'): string[] =>
    mergeTimelines(calls, { mode: 'linear', level }).stats.breaks.map((b) => b.cause);

  it('reports another agent, in its own conversation or continuing this one', () => {
    const [a] = conversation('e', [{ reply: say('plan') }]) as [Timeline];
    const own = fakeCall({
      id: 'e-1',
      episodeId: 'e',
      callIndex: 1,
      agent: 'coder',
      messages: [SYS, user('code it')],
      tools: a.tools,
      reply: say('done'),
    });
    const cont = fakeCall({
      id: 'e-1',
      episodeId: 'e',
      callIndex: 1,
      agent: 'coder',
      messages: historyAfter(a, user('go')),
      tools: a.tools,
      reply: say('done'),
    });
    for (const level of ['token', 'text'] as const) {
      expect(causes([a, own], level)).toEqual(['different_agent']);
      expect(causes([a, cont], level)).toEqual(['different_agent']);
    }
  });

  it('reports a change of tools', () => {
    const [a] = conversation('e', [{ reply: say('plan') }]) as [Timeline];
    const b = fakeCall({
      id: 'e-1',
      episodeId: 'e',
      callIndex: 1,
      messages: historyAfter(a, user('go')),
      tools: TOOLS_B,
      reply: say('done'),
    });
    expect(causes([a, b], 'token')).toEqual(['different_tools']);
    expect(causes([a, b], 'text')).toEqual(['different_tools']);
  });

  it('reports rewritten and truncated history, and retries', () => {
    const calls = conversation('e', [
      { reply: say('one') },
      { reply: say('two') },
      { reply: say('three'), messages: [SYS, user('What is 12+35?')] },
      { reply: say('four'), messages: [SYS, user('What is 12+35?')] },
    ]);
    expect(causes(calls, 'token')).toEqual(['rewritten_history', 'rewritten_history']);
    expect(causes(calls, 'text')).toEqual(['rewritten_history', 'rewritten_history']);
  });

  it('extends the longest matching chain, not just the latest one', () => {
    const [a, b] = conversation('e', [{ reply: say('one') }, { reply: say('two') }]) as [Timeline, Timeline];
    const side = fakeCall({
      id: 'e-2',
      episodeId: 'e',
      callIndex: 2,
      messages: [SYS, user('side')],
      tools: a.tools,
      reply: say('x'),
    });
    const c = fakeCall({
      id: 'e-3',
      episodeId: 'e',
      callIndex: 3,
      messages: historyAfter(b, user('more')),
      tools: a.tools,
      reply: say('y'),
    });
    const { samples } = mergeTimelines([a, b, side, c], { mode: 'linear', level: 'token' });
    expect(samples.map((s) => s.absorbedTimelineIds)).toEqual([['e-0', 'e-1', 'e-3'], ['e-2']]);
  });
});

describe('mode none and metadata', () => {
  it('gives one sample per call with the task id, episodes sorted by id', () => {
    const calls = [
      ...conversation('e2', [{ reply: say('a') }]),
      ...conversation('e1', [{ reply: say('b') }, { reply: say('c') }]),
    ];
    const { samples, episodes } = mergeTimelines(calls, { mode: 'none', level: 'token', taskIds: { e1: 'task-1' } });
    expect(samples.map((s) => [s.absorbedTimelineIds, s.taskId])).toEqual([
      [['e1-0'], 'task-1'],
      [['e1-1'], 'task-1'],
      [['e2-0'], undefined],
    ]);
    expect(episodes.map((e) => [e.episodeId, e.callsIn, e.samplesOut])).toEqual([
      ['e1', 2, 2],
      ['e2', 1, 1],
    ]);
  });

  it('merges nothing from an empty input', () => {
    const { samples, stats } = mergeTimelines([], { mode: 'tree', level: 'text' });
    expect(samples).toEqual([]);
    expect(stats).toMatchObject({ episodes: 0, callsIn: 0, compressionRatio: 1 });
  });
});
