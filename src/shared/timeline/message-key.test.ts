// Tests of the text-level message identity: all fields count, JSON arguments compare as values.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../chat';
import { argumentsKey, canonicalJson, messageKey, messagesEqual, toolsKey } from './message-key';
import { TOOLS_A } from './testing/episodes';

const call = (name: string, args: string, id = 'c1'): ChatMessage => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
});

describe('messageKey', () => {
  it('compares tool calls by name and arguments, not by content alone', () => {
    expect(messagesEqual(call('calc', '{"x":1}'), call('calc', '{"x":2}'))).toBe(false);
    expect(messagesEqual(call('calc', '{"x":1}'), call('search', '{"x":1}'))).toBe(false);
    expect(messagesEqual(call('calc', '{"x":1}'), { role: 'assistant', content: '' })).toBe(false);
  });

  it('compares arguments as parsed JSON when both parse, else as raw text', () => {
    expect(messagesEqual(call('calc', '{"a":1,"b":[1,{"c":2}]}'), call('calc', ' {"b":[1,{"c":2.0}], "a":1} '))).toBe(
      true,
    );
    expect(messagesEqual(call('calc', '{"a":1'), call('calc', '{"a":1'))).toBe(true);
    expect(messagesEqual(call('calc', '{"a":1'), call('calc', '{"a": 1'))).toBe(false);
    expect(argumentsKey('not json')).not.toBe(argumentsKey('"not json"'));
  });

  it('ignores minted tool-call ids, null vs empty content and empty tool lists', () => {
    expect(messagesEqual(call('calc', '{}', 'a'), call('calc', '{}', 'b'))).toBe(true);
    expect(
      messagesEqual({ role: 'assistant', content: null }, { role: 'assistant', content: '', tool_calls: [] }),
    ).toBe(true);
  });

  it('compares role, content, tool_call_id and name', () => {
    const tool: ChatMessage = { role: 'tool', content: '4', tool_call_id: 'c1', name: 'calc' };
    expect(messagesEqual(tool, { ...tool })).toBe(true);
    expect(messagesEqual(tool, { ...tool, tool_call_id: 'c2' })).toBe(false);
    expect(messagesEqual(tool, { ...tool, name: 'other' })).toBe(false);
    expect(messagesEqual(tool, { ...tool, content: '5' })).toBe(false);
    expect(messagesEqual({ role: 'user', content: 'hi' }, { role: 'system', content: 'hi' })).toBe(false);
    expect(messageKey({ role: 'user', content: 'a"b' })).not.toBe(messageKey({ role: 'user', content: 'a' }));
  });
});

describe('canonicalJson and toolsKey', () => {
  it('sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}',
    );
  });

  it('treats no tools and an empty list alike, and any change as different', () => {
    expect(toolsKey(null)).toBe(toolsKey([]));
    expect(toolsKey(TOOLS_A)).not.toBe(toolsKey(null));
    expect(toolsKey(TOOLS_A)).toBe(toolsKey(structuredClone(TOOLS_A)));
  });
});
