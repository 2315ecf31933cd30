import { describe, expect, it } from 'vitest';
import { ChatTurns } from './chat-turns';

const call = (id: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'calc', arguments: '{"expression":"2+3"}' },
});

describe('ChatTurns', () => {
  it('gathers an assistant turn (text parts, then its calls) into one message that the next message closes', () => {
    const t = new ChatTurns();
    t.message({ role: 'user', content: 'calc 2+3' });
    t.assistantText('Let me ');
    t.assistantText('compute.');
    t.toolCall(call('c1'));
    t.toolCall(call('c2'));
    t.message({ role: 'tool', content: '5', tool_call_id: 'c1' });
    t.assistantText('5');
    expect(t.messages()).toEqual([
      { role: 'user', content: 'calc 2+3' },
      { role: 'assistant', content: 'Let me compute.', tool_calls: [call('c1'), call('c2')] },
      { role: 'tool', content: '5', tool_call_id: 'c1' },
      { role: 'assistant', content: '5' },
    ]);
  });

  it('a turn of calls alone has null content; no assistant items, no assistant message', () => {
    const a = new ChatTurns();
    a.toolCall(call('c1'));
    expect(a.messages()).toEqual([{ role: 'assistant', content: null, tool_calls: [call('c1')] }]);
    const b = new ChatTurns();
    b.message({ role: 'system', content: 's' });
    expect(b.messages()).toEqual([{ role: 'system', content: 's' }]);
  });
});
