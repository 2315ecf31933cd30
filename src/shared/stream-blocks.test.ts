import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolCall } from './chat';
import { argumentsObject, BlockAssembler, blocksOfMessage, type Block } from './stream-blocks';
import { eventsOfDelta, type StreamEvent } from './stream-events';

const call = (i: number, name = 'calc', args = '{"expression":"2+3"}'): ToolCall => ({
  id: `call_x_${i}`,
  type: 'function',
  function: { name, arguments: args },
});

describe('eventsOfDelta', () => {
  it('turns content and completed calls into start / args / end events', () => {
    expect(eventsOfDelta({ content: 'Hi', toolCalls: [{ index: 0, call: call(0) }] })).toEqual([
      { kind: 'content', text: 'Hi' },
      { kind: 'tool_call_start', index: 0, id: 'call_x_0', name: 'calc' },
      { kind: 'tool_call_args', index: 0, text: '{"expression":"2+3"}' },
      { kind: 'tool_call_end', index: 0, call: call(0) },
    ]);
    expect(eventsOfDelta({ content: '', toolCalls: [] })).toEqual([]);
  });
});

describe('BlockAssembler', () => {
  it('opens a text block, streams into it, closes it when a call starts, and closes the call at its end', () => {
    const a = new BlockAssembler(false);
    const out = [
      ...a.push({ kind: 'content', text: 'Let ' }),
      ...a.push({ kind: 'content', text: 'me.' }),
      ...a.push({ kind: 'tool_call_start', index: 0, id: 'call_x_0', name: 'calc' }),
      ...a.push({ kind: 'tool_call_args', index: 0, text: '{"expression":' }),
      ...a.push({ kind: 'tool_call_args', index: 0, text: '"2+3"}' }),
      ...a.push({ kind: 'tool_call_end', index: 0, call: call(0) }),
      ...a.finish(),
    ];
    expect(out.map((e) => `${e.kind}${e.index}`)).toEqual([
      'open0',
      'text0',
      'text0',
      'close0',
      'open1',
      'args1',
      'args1',
      'close1',
    ]);
    expect(a.blocks).toEqual([
      { type: 'text', text: 'Let me.' },
      { type: 'tool_call', id: 'call_x_0', name: 'calc', arguments: '{"expression":"2+3"}' },
    ]);
  });

  it('gives an empty turn one empty text block only when asked', () => {
    const withText = new BlockAssembler(true);
    expect(withText.finish().map((e) => e.kind)).toEqual(['open', 'close']);
    expect(withText.blocks).toEqual([{ type: 'text', text: '' }]);
    const without = new BlockAssembler(false);
    expect(without.finish()).toEqual([]);
    expect(without.blocks).toEqual([]);
  });

  it('streams the same blocks as the whole message, for any split of the content (property)', () => {
    const message = fc.record({
      content: fc.string({ maxLength: 40 }),
      calls: fc.array(
        fc.record({ name: fc.constantFrom('calc', 'lookup'), args: fc.constantFrom('{}', '{"a":1}', '{"q":"x y"}') }),
        { maxLength: 3 },
      ),
      cuts: fc.array(fc.nat(40), { maxLength: 5 }),
    });
    fc.assert(
      fc.property(message, ({ content, calls, cuts }) => {
        const toolCalls = calls.map((c, i) => call(i, c.name, c.args));
        const m: ChatMessage =
          toolCalls.length > 0
            ? { role: 'assistant', content: content === '' ? null : content, tool_calls: toolCalls }
            : { role: 'assistant', content };
        const points = [...new Set(cuts.filter((c) => c < content.length))].sort((x, y) => x - y);
        const pieces = [0, ...points]
          .map((p, i, all) => content.slice(p, all[i + 1] ?? content.length))
          .filter((p) => p !== '');
        const events: StreamEvent[] = [
          ...pieces.map((text): StreamEvent => ({ kind: 'content', text })),
          ...eventsOfDelta({ content: '', toolCalls: toolCalls.map((c, index) => ({ index, call: c })) }),
        ];
        const a = new BlockAssembler(true);
        const streamed = [...events.flatMap((e) => a.push(e)), ...a.finish()];
        expect(a.blocks).toEqual(blocksOfMessage(m, true));
        const text = streamed.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join('');
        expect(text).toBe(content);
        const closed: Block[] = streamed.flatMap((e) => (e.kind === 'close' ? [e.block] : []));
        expect(closed).toEqual(a.blocks);
      }),
    );
  });
});

describe('argumentsObject', () => {
  it('parses JSON objects and gives {} for anything else', () => {
    expect(argumentsObject('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(argumentsObject('[1]')).toEqual({});
    expect(argumentsObject('nope')).toEqual({});
  });
});
