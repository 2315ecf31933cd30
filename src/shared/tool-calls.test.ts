// Tests for Hermes tool-call parsing and template-exact formatting, including format→parse round trips.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCall } from './chat';
import { assistantMessageFromText, formatToolCalls, parseToolCalls, pyJsonDumps } from './tool-calls';

const block = (json: string): string => `<tool_call>\n${json}\n</tool_call>`;
const calc = (expression: string, id = 'call_p_0'): ToolCall => ({
  id,
  type: 'function',
  function: { name: 'calc', arguments: JSON.stringify({ expression }) },
});

describe('parseToolCalls', () => {
  it('reads one block with no content', () => {
    const out = parseToolCalls(block('{"name": "calc", "arguments": {"expression": "2+3"}}'), 'p');
    expect(out).toEqual({ content: null, toolCalls: [calc('2+3')], malformed: 0 });
  });

  it('keeps content before the blocks and reads several blocks', () => {
    const text = `Let me compute.\n${block('{"name": "calc", "arguments": {"expression": "1+1"}}')}\n${block('{"name":"calc","arguments":{"expression":"2*2"}}')}`;
    const out = parseToolCalls(text, 't1');
    expect(out.content).toBe('Let me compute.');
    expect(out.toolCalls.map((c) => c.id)).toEqual(['call_t1_0', 'call_t1_1']);
    expect(out.toolCalls.map((c) => c.function.arguments)).toEqual(['{"expression":"1+1"}', '{"expression":"2*2"}']);
    expect(out.malformed).toBe(0);
  });

  it('tolerates extra whitespace and a missing close tag at the end of the text', () => {
    const out = parseToolCalls('<tool_call>  \n\n {"name": "calc", "arguments": {"expression": "7"}}  \n', 'x');
    expect(out.toolCalls).toEqual([calc('7', 'call_x_0')]);
    expect(out.content).toBeNull();
  });

  it('treats missing arguments as an empty object', () => {
    const out = parseToolCalls(block('{"name": "now"}'), 'x');
    expect(out.toolCalls[0]?.function).toEqual({ name: 'now', arguments: '{}' });
  });

  it('closes a call whose object is left open, and counts it', () => {
    const out = parseToolCalls(block('{"name": "calc", "arguments": {"expression": "2+3"}'), 'p');
    expect(out).toEqual({ content: null, toolCalls: [calc('2+3')], malformed: 1 });
  });

  it.each([
    ['no name', '{"arguments": {"expression": "2+3"}}'],
    ['empty name', '{"name": "", "arguments": {}}'],
    ['string arguments', '{"name": "calc", "arguments": "2+3"}'],
    ['array arguments', '{"name": "calc", "arguments": [1]}'],
    ['not an object', '[1, 2]'],
  ])('leaves a malformed block (%s) in the content and counts it', (_label, json) => {
    const text = block(json);
    expect(parseToolCalls(text, 'p')).toEqual({ content: text, toolCalls: [], malformed: 1 });
  });

  it('mixes well-formed and malformed blocks', () => {
    const bad = block('{"name": calc}');
    const text = `${block('{"name": "calc", "arguments": {"expression": "1"}}')}\n${bad}`;
    const out = parseToolCalls(text, 'p');
    expect(out.toolCalls).toHaveLength(1);
    expect(out.malformed).toBe(1);
    expect(out.content).toBe(bad);
  });

  it('ends a block at the next open tag (a missing close tag, like at the end of the text)', () => {
    const text =
      '<tool_call>\n{"name": "calc", "arguments": {}}\n<tool_call>\n{"name": "calc", "arguments": {}}\n</tool_call>';
    const out = parseToolCalls(text, 'p');
    expect(out.malformed).toBe(0);
    expect(out.toolCalls.map((c) => c.id)).toEqual(['call_p_0', 'call_p_1']);
    expect(out.content).toBeNull();
    const broken = parseToolCalls('<tool_call>\n{"name": calc}\n<tool_call>{"name": "f"}</tool_call>', 'p');
    expect(broken).toEqual({
      content: '<tool_call>\n{"name": calc}',
      toolCalls: [{ id: 'call_p_0', type: 'function', function: { name: 'f', arguments: '{}' } }],
      malformed: 1,
    });
  });

  it('returns plain text unchanged and empty text as null', () => {
    expect(parseToolCalls('The answer is 5.\n#### 5', 'p')).toEqual({
      content: 'The answer is 5.\n#### 5',
      toolCalls: [],
      malformed: 0,
    });
    expect(parseToolCalls('', 'p').content).toBeNull();
  });

  it('never throws and accounts for every open tag', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom(
              '<tool_call>',
              '</tool_call>',
              '{"name": "f", "arguments": {}}',
              '{"name": "g", "arguments": {"a": ',
              '\n',
            ),
          ),
        ),
        (parts) => {
          const text = parts.join('');
          const out = parseToolCalls(text, 'p');
          const opens = text.split('<tool_call>').length - 1;
          // every block is a call, text (malformed) or a call closed early (both)
          expect(out.toolCalls.length).toBeLessThanOrEqual(opens);
          expect(out.malformed).toBeLessThanOrEqual(opens);
          expect(out.toolCalls.length + out.malformed).toBeGreaterThanOrEqual(opens);
        },
      ),
    );
  });
});

describe('formatToolCalls', () => {
  it('renders exactly like the chat template', () => {
    expect(formatToolCalls(null, [calc('2+3')])).toBe(
      '<tool_call>\n{"name": "calc", "arguments": {"expression": "2+3"}}\n</tool_call>',
    );
    expect(formatToolCalls('Hi', [calc('1'), calc('2')])).toBe(
      'Hi\n<tool_call>\n{"name": "calc", "arguments": {"expression": "1"}}\n</tool_call>\n<tool_call>\n{"name": "calc", "arguments": {"expression": "2"}}\n</tool_call>',
    );
    expect(formatToolCalls('Just text', [])).toBe('Just text');
    expect(formatToolCalls(null, [])).toBe('');
  });

  it('passes argument text that is not a JSON object through verbatim', () => {
    const tc = (args: string): ToolCall => ({ id: 'c', type: 'function', function: { name: 'f', arguments: args } });
    expect(formatToolCalls(null, [tc('{oops')])).toBe('<tool_call>\n{"name": "f", "arguments": {oops}\n</tool_call>');
    expect(formatToolCalls(null, [tc('[1,2]')])).toBe('<tool_call>\n{"name": "f", "arguments": [1,2]}\n</tool_call>');
    expect(formatToolCalls(null, [tc('{"a":[1,{"b":2}]}')])).toBe(
      '<tool_call>\n{"name": "f", "arguments": {"a": [1, {"b": 2}]}}\n</tool_call>',
    );
  });

  it('round-trips through parseToolCalls', () => {
    const safe = (s: string): boolean => !s.includes('<tool_call>') && !s.includes('</tool_call>');
    const argsArb = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 });
    const callArb = fc.record({ name: fc.string({ minLength: 1 }), args: argsArb });
    fc.assert(
      fc.property(fc.option(fc.string()), fc.array(callArb, { maxLength: 4 }), (rawContent, specs) => {
        const content = rawContent === null ? null : rawContent.trim();
        const calls: ToolCall[] = specs.map((s, i) => ({
          id: `call_rt_${i}`,
          type: 'function',
          function: { name: s.name, arguments: JSON.stringify(s.args) },
        }));
        fc.pre(safe(content ?? '') && calls.every((c) => safe(c.function.name) && safe(c.function.arguments)));
        const text = formatToolCalls(content, calls);
        const out = parseToolCalls(text, 'rt');
        expect(out.malformed).toBe(0);
        expect(out.content).toBe(content === '' ? null : content);
        expect(out.toolCalls).toEqual(calls);
        expect(formatToolCalls(out.content, out.toolCalls)).toBe(text);
      }),
    );
  });
});

describe('pyJsonDumps', () => {
  it('uses Python default separators', () => {
    expect(pyJsonDumps({ a: [1, 'x', null, true], b: { c: 1.5 }, d: [], e: {} })).toBe(
      '{"a": [1, "x", null, true], "b": {"c": 1.5}, "d": [], "e": {}}',
    );
    expect(pyJsonDumps('a"b')).toBe('"a\\"b"');
  });
});

describe('assistantMessageFromText', () => {
  it('omits tool_calls when there are none', () => {
    expect(assistantMessageFromText('Guess: 50', 'p')).toEqual({ role: 'assistant', content: 'Guess: 50' });
    expect(assistantMessageFromText(block('{"name": "calc", "arguments": {"expression": "1"}}'), 'p')).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [calc('1')],
    });
  });
});
