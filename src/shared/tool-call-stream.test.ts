import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCall } from './chat';
import { settledLength, ToolCallStream } from './tool-call-stream';
import { parseToolCalls } from './tool-calls';

/** Streams `text` cut at `cuts`, returning the concatenated content and the calls in order. */
function stream(text: string, cuts: number[], parseTools = true): { content: string; calls: ToolCall[]; consistent: boolean; indices: number[] } {
  const s = new ToolCallStream('p', parseTools);
  let content = '';
  const calls: ToolCall[] = [];
  const indices: number[] = [];
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const d = s.push(text.slice(0, cut));
    content += d.content;
    for (const c of d.toolCalls) {
      calls.push(c.call);
      indices.push(c.index);
    }
  }
  const f = s.finish(text);
  content += f.delta.content;
  for (const c of f.delta.toolCalls) {
    calls.push(c.call);
    indices.push(c.index);
  }
  return { content, calls, consistent: f.consistent, indices };
}

describe('settledLength', () => {
  it('holds back open blocks and partial opening tags', () => {
    expect(settledLength('hello')).toBe(5);
    expect(settledLength('hi <tool_c')).toBe(3);
    expect(settledLength('hi <tool_call>{"name"')).toBe(3);
    expect(settledLength('hi <tool_call>{}</tool_call> x')).toBe(30);
    expect(settledLength('<tool_call>a<tool_call>b')).toBe(12);
  });
});

describe('ToolCallStream', () => {
  it('streams content, then a tool call once its block closes', () => {
    const text = 'Let me compute.\n<tool_call>\n{"name": "calc", "arguments": {"expression": "2+3"}}\n</tool_call>';
    const s = new ToolCallStream('ep_0', true);
    expect(s.push('Let me ')).toEqual({ content: 'Let me', toolCalls: [] });
    expect(s.push('Let me compute.\n<tool_call>\n{"name": "ca')).toEqual({ content: ' compute.', toolCalls: [] });
    const f = s.finish(text);
    expect(f.consistent).toBe(true);
    expect(f.delta.content).toBe('');
    expect(f.delta.toolCalls).toEqual([{ index: 0, call: { id: 'call_ep_0_0', type: 'function', function: { name: 'calc', arguments: '{"expression":"2+3"}' } } }]);
  });

  it('holds back half a UTF-8 character', () => {
    const s = new ToolCallStream('x', false);
    expect(s.push('caf\uFFFD').content).toBe('caf');
    expect(s.push('café').content).toBe('é');
  });

  it('sends a malformed block as text', () => {
    const text = 'ok <tool_call>{not json}</tool_call>';
    const out = stream(text, [5, 20]);
    expect(out.calls).toEqual([]);
    expect(out.content).toBe(text);
  });

  const piece = fc.constantFrom(
    'Hello', ' ', '\n', 'world.', '42', 'é', '🙂',
    '<tool_call>\n{"name": "calc", "arguments": {"expression": "1+2"}}\n</tool_call>',
    '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    '<tool_call>{broken</tool_call>', '<tool_call>', '</tool_call>', '<tool_c',
  );
  const textArb = fc.array(piece, { maxLength: 12 }).map((ps) => ps.join(''));

  it('streamed deltas add up to the parsed final message when the text does not start with whitespace', () => {
    fc.assert(
      fc.property(textArb, fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (text, rawCuts, parseTools) => {
        fc.pre(!/^\s/.test(text));
        const cuts = rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
        const out = stream(text, cuts, parseTools);
        const final = parseTools ? parseToolCalls(text, 'p') : { content: text === '' ? null : text, toolCalls: [] };
        expect(out.consistent).toBe(true);
        expect(out.content).toBe(final.content ?? '');
        expect(out.calls).toEqual(final.toolCalls);
        expect(out.indices).toEqual(final.toolCalls.map((_, i) => i));
      }),
      { numRuns: 500 },
    );
  });

  it('never emits a tool call that the final parse does not contain', () => {
    fc.assert(
      fc.property(textArb, fc.array(fc.nat(), { maxLength: 8 }), (text, rawCuts) => {
        const cuts = rawCuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)));
        const out = stream(text, cuts);
        expect(out.calls).toEqual(parseToolCalls(text, 'p').toolCalls);
      }),
      { numRuns: 300 },
    );
  });
});
