import type { AgentInputItem } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { historyToMessages } from './agents-episode';

describe('historyToMessages', () => {
  it('turns an Agents SDK run history into chat messages, an assistant message and its calls as one turn', () => {
    const history: AgentInputItem[] = [
      { role: 'user', content: 'What is 2+3?' },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Let me compute.' }],
      },
      { type: 'function_call', callId: 'call_a', name: 'calc', arguments: '{"expression":"2+3"}', status: 'completed' },
      {
        type: 'function_call_result',
        callId: 'call_a',
        name: 'calc',
        status: 'completed',
        output: { type: 'text', text: '5' },
      },
      { type: 'function_call', callId: 'call_b', name: 'calc', arguments: '{}', status: 'completed' },
      { type: 'function_call_result', callId: 'call_b', name: 'calc', status: 'completed', output: 'error' },
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '#### 5' }] },
      { type: 'reasoning', content: [] },
    ];
    expect(historyToMessages(history)).toEqual([
      { role: 'user', content: 'What is 2+3?' },
      {
        role: 'assistant',
        content: 'Let me compute.',
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'calc', arguments: '{"expression":"2+3"}' } }],
      },
      { role: 'tool', content: '5', tool_call_id: 'call_a' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'calc', arguments: '{}' } }],
      },
      { role: 'tool', content: 'error', tool_call_id: 'call_b' },
      { role: 'assistant', content: '#### 5' },
    ]);
  });
});
