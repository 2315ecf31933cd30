import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/shared/chat';
import { fromOpenAIMessage, toOpenAIMessage, UNANSWERED_CALL_ID } from './openai-policy';

describe('openai policy adapter', () => {
  it('maps every role onto the openai request shape', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'calc', arguments: '{"expression":"1+2"}' } };
    const history: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', content: '3', tool_call_id: 'c1', name: 'calc' },
      { role: 'tool', content: 'error', name: 'calc' },
      { role: 'assistant', content: '#### 3' },
    ];
    expect(history.map(toOpenAIMessage)).toEqual([
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', content: '3', tool_call_id: 'c1' },
      { role: 'tool', content: 'error', tool_call_id: UNANSWERED_CALL_ID },
      { role: 'assistant', content: '#### 3' },
    ]);
  });

  it('reads an assistant answer with and without tool calls', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'calc', arguments: '{}' } };
    expect(fromOpenAIMessage({ role: 'assistant', content: null, refusal: null, tool_calls: [call] })).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [call],
    });
    expect(fromOpenAIMessage({ role: 'assistant', content: '#### 4', refusal: null })).toEqual({
      role: 'assistant',
      content: '#### 4',
    });
  });
});
