// The chain-break cause `template_dropped_reasoning`: a call whose sampled reply carried reasoning,
// re-rendered into the next prompt by a template that drops it (as Qwen3's does once a new user
// message follows; the real template's case is in gpu-worker/src/families.test.ts).
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../chat';
import { mergeTimelines } from './merge';
import type { Timeline } from './types';
import { encode, fakeCall } from './testing/fake-chat';

const SYSTEM: ChatMessage = { role: 'system', content: 'be brief' };
const ASK: ChatMessage = { role: 'user', content: 'what is 2+3' };

/** A call whose sampled tokens are its reasoning, then its reply (the fake template renders no reasoning). */
function thinkingCall(reply: ChatMessage, reasoningTokens: number): Timeline {
  const t = fakeCall({ id: 'e-0', episodeId: 'e', callIndex: 0, messages: [SYSTEM, ASK], reply });
  const thought = encode('x'.repeat(reasoningTokens)).slice(0, reasoningTokens);
  return {
    ...t,
    outputIds: [...thought, ...t.outputIds],
    outputLogprobs: [...thought.map(() => -1), ...t.outputLogprobs],
  };
}

const next = (a: Timeline): Timeline =>
  fakeCall({
    id: 'e-1',
    episodeId: 'e',
    callIndex: 1,
    messages: [...a.messages, a.output, { role: 'user', content: 'and 4+4' }],
    reply: { role: 'assistant', content: '8' },
  });

describe('chain breaks caused by the template', () => {
  it('names a dropped reasoning: same messages, the earlier reply rendered without its reasoning', () => {
    const a = thinkingCall({ role: 'assistant', content: 'five', reasoning_content: 'add them up' }, 6);
    const { samples, stats } = mergeTimelines([a, next(a)], { mode: 'linear', level: 'token' });
    expect(samples).toHaveLength(2);
    expect(stats.breaks).toEqual([{ episodeId: 'e', timelineId: 'e-1', cause: 'template_dropped_reasoning' }]);
    expect(stats.breakCounts.template_dropped_reasoning).toBe(1);
  });

  it('keeps token_drift for a reply without reasoning whose tokens differ', () => {
    const a = thinkingCall({ role: 'assistant', content: 'five' }, 6);
    expect(mergeTimelines([a, next(a)], { mode: 'linear', level: 'token' }).stats.breaks[0]?.cause).toBe('token_drift');
  });
});
