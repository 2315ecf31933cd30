import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/shared/chat';
import { fromLangChain, toLangChain } from './langchain-policy';
import { UNANSWERED_CALL_ID } from './openai-policy';

describe('LangChain policy adapter', () => {
  it('maps every role onto LangChain messages', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'calc', arguments: '{"expression":"1+2"}' } };
    const history: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', content: '3', tool_call_id: 'c1', name: 'calc' },
      { role: 'tool', content: 'error', name: 'calc' },
      { role: 'assistant', content: '#### 3' },
    ];
    const out = toLangChain(history);
    expect(out.map((m) => m.constructor.name)).toEqual([
      SystemMessage.name,
      HumanMessage.name,
      AIMessage.name,
      ToolMessage.name,
      ToolMessage.name,
      AIMessage.name,
    ]);
    const ai = out[2];
    expect(ai instanceof AIMessage && ai.tool_calls).toEqual([
      { id: 'c1', name: 'calc', args: { expression: '1+2' }, type: 'tool_call' },
    ]);
    const unanswered = out[4];
    expect(unanswered instanceof ToolMessage && unanswered.tool_call_id).toBe(UNANSWERED_CALL_ID);
  });

  it('reads an answer with tool calls, invalid calls and plain text', () => {
    const withCalls = new AIMessage({
      content: '',
      tool_calls: [{ id: 'c1', name: 'calc', args: { expression: '2+3' }, type: 'tool_call' }],
      invalid_tool_calls: [{ id: 'c2', name: 'calc', args: '{oops', error: 'bad json', type: 'invalid_tool_call' }],
    });
    expect(fromLangChain(withCalls)).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"expression":"2+3"}' } },
        { id: 'c2', type: 'function', function: { name: 'calc', arguments: '{oops' } },
      ],
    });
    expect(fromLangChain(new AIMessageChunk({ content: '#### 5' }))).toEqual({ role: 'assistant', content: '#### 5' });
  });
});
