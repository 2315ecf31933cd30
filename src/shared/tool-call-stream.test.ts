// The Hermes streaming parser: events that add up to the parsed reply however the text is cut,
// calls started as soon as their name is known, arguments streamed, malformed blocks never started.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCall } from './chat';
import { HermesStreamParser, parseStream, type StreamEvent } from './tool-call-stream';
import { formatToolCalls } from './tool-calls';

/** Streams `text` in the pieces between `cuts` and checks the stream's invariants. */
function stream(
  text: string,
  cuts: number[],
  parseTools = true,
): { events: StreamEvent[]; content: string; calls: ToolCall[] } {
  const chars = [...text];
  const points = [...new Set([0, ...cuts.map((c) => c % (chars.length + 1)), chars.length])].sort((a, b) => a - b);
  const p = new HermesStreamParser('p', parseTools);
  const events: StreamEvent[] = [];
  for (let i = 1; i < points.length; i++) events.push(...p.push(chars.slice(points[i - 1], points[i]).join('')));
  events.push(...p.finish());
  const result = p.result();
  let content = '';
  const args = new Map<number, string>();
  const state = new Map<number, 'open' | 'ended'>();
  const ended: ToolCall[] = [];
  for (const e of events) {
    if (e.kind === 'content') content += e.text;
    else if (e.kind === 'tool_call_start') {
      expect(e.index).toBe(state.size); // calls start in order, each once
      state.set(e.index, 'open');
      args.set(e.index, '');
    } else if (e.kind === 'tool_call_args') {
      expect(state.get(e.index)).toBe('open');
      args.set(e.index, args.get(e.index)! + e.text);
    } else if (e.kind === 'tool_call_end') {
      expect(state.get(e.index)).toBe('open');
      state.set(e.index, 'ended');
      expect(e.call.function.arguments).toBe(args.get(e.index));
      ended.push(e.call);
    }
  }
  expect([...state.values()].every((s) => s === 'ended')).toBe(true); // every started call ends
  expect(content).toBe(result.content ?? '');
  expect(ended).toEqual(result.toolCalls);
  return { events, content, calls: ended };
}

const piece = fc.constantFrom(
  'Hello',
  ' ',
  '\n',
  'world.',
  '42',
  'é',
  '🙂',
  '<',
  '"',
  '{',
  '}',
  '<tool_call>\n{"name": "calc", "arguments": {"expression": "1+2"}}\n</tool_call>',
  '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
  '<tool_call>{"name": "now"}</tool_call>',
  '<tool_call>{"arguments": {"x": [1, 2]}, "name": "late"}</tool_call>',
  '<tool_call>{"name": "calc", "arguments": {"expression": "2+',
  '<tool_call>{broken</tool_call>',
  '<tool_call>{"name": 3}</tool_call>',
  '<tool_call>',
  '</tool_call>',
  '<tool_c',
  '{"name": "g", "arguments": {"a": "<b>"}}',
);
const textArb = fc.array(piece, { maxLength: 12 }).map((ps) => ps.join(''));
const cutsArb = fc.array(fc.nat(), { maxLength: 10 });

describe('HermesStreamParser', () => {
  it('adds up to the same reply however the text is cut (and to parsing it whole)', () => {
    fc.assert(
      fc.property(textArb, cutsArb, fc.boolean(), (text, cuts, parseTools) => {
        const whole = parseStream(text, 'p', parseTools).parsed;
        const cut = stream(text, cuts, parseTools);
        expect(cut.content).toBe(whole.content ?? '');
        expect(cut.calls).toEqual(whole.toolCalls);
        if (!parseTools) expect(whole).toEqual({ content: text === '' ? null : text, toolCalls: [], malformed: 0 });
      }),
      { numRuns: 800 },
    );
  });

  it('streams a call: id and name once the arguments begin, then the arguments as they come', () => {
    const text =
      'Let me compute.\n<tool_call>\n{"name": "calc", "arguments": {"expression": "12 * (3 + 4)"}}\n</tool_call>';
    const p = new HermesStreamParser('ep_0');
    const seen: { at: number; e: StreamEvent }[] = [];
    const chars = [...text];
    chars.forEach((ch, i) => p.push(ch).forEach((e) => seen.push({ at: i, e })));
    p.finish().forEach((e) => seen.push({ at: chars.length, e }));
    const start = seen.find((s) => s.e.kind === 'tool_call_start')!;
    expect(start.e).toEqual({ kind: 'tool_call_start', index: 0, id: 'call_ep_0_0', name: 'calc' });
    expect(start.at).toBe(text.indexOf('{"expression"')); // the character that opens the arguments
    const args = seen.filter((s) => s.e.kind === 'tool_call_args');
    expect(args.length).toBeGreaterThan(10); // one delta per generated piece
    expect(args.map((s) => (s.e as { text: string }).text).join('')).toBe('{"expression":"12 * (3 + 4)"}');
    expect(
      seen
        .filter((s) => s.e.kind === 'content')
        .map((s) => (s.e as { text: string }).text)
        .join(''),
    ).toBe('Let me compute.');
    expect(seen.at(-1)!.e.kind).toBe('tool_call_end');
  });

  it('holds a block back until it is certain, and sends one that is not a call as text', () => {
    const p = new HermesStreamParser('x');
    expect(p.push('ok <tool_call>{not')).toEqual([{ kind: 'content', text: 'ok' }]);
    expect(p.push(' json}</tool_call>')).toEqual([{ kind: 'content', text: ' <tool_call>{not json}</tool_call>' }]);
    expect(p.finish()).toEqual([]);
    expect(p.result()).toEqual({ content: 'ok <tool_call>{not json}</tool_call>', toolCalls: [], malformed: 1 });
  });

  it('closes a call cut short with the arguments parsed so far and counts it', () => {
    const { parsed, events } = parseStream('<tool_call>\n{"name": "calc", "arguments": {"expression": "2+', 'p');
    expect(parsed.toolCalls).toEqual([
      { id: 'call_p_0', type: 'function', function: { name: 'calc', arguments: '{"expression":"2+"}' } },
    ]);
    expect(parsed.malformed).toBe(1);
    expect(events[0]!.kind).toBe('tool_call_start');
    expect(events.at(-1)!.kind).toBe('tool_call_end');
  });

  it('round-trips formatted calls exactly', () => {
    const argsArb = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 });
    const callArb = fc.record({ name: fc.string({ minLength: 1 }), args: argsArb });
    fc.assert(
      fc.property(fc.option(fc.string()), fc.array(callArb, { maxLength: 4 }), cutsArb, (rawContent, specs, cuts) => {
        const content = rawContent === null ? null : rawContent.trim();
        const calls: ToolCall[] = specs.map((s, i) => ({
          id: `call_p_${i}`,
          type: 'function',
          function: { name: s.name, arguments: JSON.stringify(s.args) },
        }));
        const safe = (s: string): boolean => !s.includes('<tool_call>') && !s.includes('</tool_call>');
        fc.pre(safe(content ?? '') && calls.every((c) => safe(c.function.name) && safe(c.function.arguments)));
        const out = stream(formatToolCalls(content, calls), cuts);
        expect(out.calls).toEqual(calls);
        expect(out.content).toBe(content ?? '');
      }),
      { numRuns: 300 },
    );
  });
});
