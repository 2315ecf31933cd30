// The one call-recording path against the fake engine, behind the real admission gate: a token-exact timeline, tool calls parsed
// and streamed, tool_choice "required" retried, and input the engine refuses named as such.
import { describe, expect, it } from 'vitest';
import { Admission } from '../engine/admission';
import { gateGenerator } from '../engine/generator';
import { decode, FakeEngine } from '../testing/fake-engine';
import { CALC_CALL, scriptedReply } from '../testing/scripted-replies';
import { CallRefusedError, recordCall, TOOL_CHOICE_ATTEMPTS, type CallSpec, type RecordDeps } from './record-call';

function deps(
  reply: (prompt: string) => string = (p) => scriptedReply(p, { promptIds: [], maxTokens: 1, temperature: 1 }),
  contextLength = 4096,
): { fake: FakeEngine; deps: RecordDeps } {
  const fake = new FakeEngine({ reply, contextLength });
  return {
    fake,
    deps: {
      engine: fake,
      generator: gateGenerator(new Admission(fake)),
      contextLength: () => contextLength,
      now: () => 1234,
    },
  };
}

const calc = { type: 'function' as const, function: { name: 'calc', parameters: { type: 'object' } } };

const spec = (over: Partial<CallSpec> = {}): CallSpec => ({
  episodeId: 'ep_1',
  callIndex: 0,
  agent: 'default',
  idPrefix: 'x_0',
  messages: [{ role: 'user', content: 'hello' }],
  tools: null,
  toolChoice: { mode: 'auto' },
  parseTools: false,
  maxTokens: 200,
  temperature: 1,
  topP: 1,
  seedFor: (a) => 10 + a,
  ...over,
});

describe('recordCall', () => {
  it('records the call token-exactly as a timeline', async () => {
    const { deps: d } = deps();
    const rec = await recordCall(d, spec());
    expect(rec.message).toEqual({ role: 'assistant', content: 'Hello from the fake engine.' });
    expect(rec.timeline).toMatchObject({
      id: 'ep_1/0',
      episodeId: 'ep_1',
      callIndex: 0,
      agent: 'default',
      finishReason: 'stop',
      weightVersion: 0,
      createdAt: 1234,
    });
    expect(decode(rec.timeline.outputIds)).toBe('Hello from the fake engine.');
    expect(rec.timeline.outputLogprobs).toHaveLength(rec.timeline.outputIds.length);
    expect(rec.promptTokens).toBe(rec.timeline.promptIds.length);
    expect(rec.completionTokens).toBe(rec.timeline.outputIds.length);
  });

  it('parses tool calls and streams content before the call', async () => {
    const { deps: d } = deps();
    const streamed: string[] = [];
    const calls: string[] = [];
    const rec = await recordCall(
      d,
      spec({ messages: [{ role: 'user', content: 'calc please' }], tools: [calc], parseTools: true }),
      {
        onEvent: (e) => {
          if (e.kind === 'content') streamed.push(e.text);
          if (e.kind === 'tool_call_start') calls.push(e.name);
        },
      },
    );
    expect(rec.finishReason).toBe('tool_calls');
    expect(rec.message.tool_calls?.[0]?.function.name).toBe('calc');
    expect(rec.message.tool_calls?.[0]?.id).toBe('call_x_0_0');
    expect(streamed.join('')).toBe(rec.message.content);
    expect(calls).toEqual(['calc']);
  });

  it('retries tool_choice "required" with a new seed until a tool call comes, at most TOOL_CHOICE_ATTEMPTS times', async () => {
    const { fake, deps: d } = deps(() => 'no tool at all');
    const seeds: number[] = [];
    const rec = await recordCall(
      d,
      spec({ tools: [calc], parseTools: true, toolChoice: { mode: 'required' }, seedFor: (a) => (seeds.push(a), a) }),
    );
    expect(rec.attempts).toBe(TOOL_CHOICE_ATTEMPTS);
    expect(seeds).toEqual([0, 1, 2]);
    expect(fake.generateBatches).toHaveLength(TOOL_CHOICE_ATTEMPTS);
    const ok = await recordCall(
      deps(() => CALC_CALL).deps,
      spec({ tools: [calc], parseTools: true, toolChoice: { mode: 'required', name: 'calc' } }),
    );
    expect(ok.attempts).toBe(1);
  });

  it('refuses a prompt that fills the context, and clamps max tokens to what is left', async () => {
    const { deps: small } = deps(() => 'x'.repeat(500), 60);
    await expect(
      recordCall(small, spec({ messages: [{ role: 'user', content: 'y'.repeat(80) }] })),
    ).rejects.toMatchObject({ code: 'context_length_exceeded' });
    await expect(
      recordCall(small, spec({ messages: [{ role: 'user', content: 'y'.repeat(80) }] })),
    ).rejects.toBeInstanceOf(CallRefusedError);
    const rec = await recordCall(small, spec({ messages: [{ role: 'user', content: 'y' }], maxTokens: 500 }));
    expect(rec.promptTokens + rec.completionTokens).toBe(60);
    expect(rec.finishReason).toBe('length');
  });
});
