import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../chat';
import { SwarmError } from '../swarm-error';
import { blocksOfMessage } from '../stream-blocks';
import { MessagesRequestSchema, type MessagesRequest } from './schema';
import { MessagesStream } from './streaming';
import { checkMessagesBody, contentBlock, messageObject, messagesToChat, messagesToChatMessages } from './translate';

const req = (body: Record<string, unknown>): MessagesRequest =>
  MessagesRequestSchema.parse({ model: 'm', max_tokens: 16, ...body });
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof SwarmError) return `${err.status} ${err.code}`;
    throw err;
  }
};

describe('messagesToChat', () => {
  it('maps system, tool_use and tool_result blocks, tools, tool_choice, stop sequences and limits', () => {
    const chat = messagesToChat(
      req({
        system: [{ type: 'text', text: 'sys' }],
        messages: [
          { role: 'user', content: 'q' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Let me.' },
              { type: 'tool_use', id: 'toolu_1', name: 'calc', input: { expression: '2+3' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '5' }] },
              { type: 'text', text: 'thanks' },
            ],
          },
        ],
        tools: [{ name: 'calc', description: 'd', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any' },
        stop_sequences: ['END'],
        temperature: 0.2,
        stream: true,
      }),
    );
    expect(chat.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'Let me.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'calc', arguments: '{"expression":"2+3"}' } },
        ],
      },
      { role: 'tool', content: '5', tool_call_id: 'toolu_1' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(chat.tools).toEqual([
      { type: 'function', function: { name: 'calc', description: 'd', parameters: { type: 'object' } } },
    ]);
    expect(chat).toMatchObject({
      tool_choice: 'required',
      stop: ['END'],
      max_tokens: 16,
      temperature: 0.2,
      stream: true,
    });
    expect(
      messagesToChat(req({ messages: [{ role: 'user', content: 'x' }], tool_choice: { type: 'tool', name: 'calc' } }))
        .tool_choice,
    ).toEqual({ type: 'function', function: { name: 'calc' } });
  });

  it('refuses top_k, thinking, MCP servers and misplaced blocks', () => {
    const m = [{ role: 'user', content: 'x' }];
    expect(codeOf(() => messagesToChat(req({ messages: m, top_k: 3 })))).toBe('400 unsupported_parameter');
    expect(codeOf(() => messagesToChat(req({ messages: m, thinking: { type: 'enabled', budget_tokens: 100 } })))).toBe(
      '400 unsupported_parameter',
    );
    expect(codeOf(() => messagesToChat(req({ messages: m, thinking: { type: 'disabled' } })))).toBeNull();
    expect(codeOf(() => messagesToChat(req({ messages: m, mcp_servers: [{ url: 'x' }] })))).toBe(
      '400 unsupported_parameter',
    );
    expect(
      codeOf(() =>
        messagesToChat(
          req({ messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }] }),
        ),
      ),
    ).toBe('400 invalid_messages');
    expect(codeOf(() => messagesToChat(req({ messages: m, tool_choice: { type: 'tool' } })))).toBe(
      '400 invalid_tool_choice',
    );
  });
});

describe('checkMessagesBody', () => {
  it('takes thinking blocks sent back as the server returned them', () => {
    const assistant = { role: 'assistant', content: [{ type: 'thinking', thinking: 'r', signature: '' }] };
    expect(codeOf(() => checkMessagesBody({ messages: [{ role: 'user', content: 'q' }, assistant] }))).toBeNull();
  });

  it('names unknown fields, unsupported blocks and server tools', () => {
    expect(codeOf(() => checkMessagesBody({ messages: [], frob: 1 }))).toBe('400 unsupported_parameter');
    expect(
      codeOf(() => checkMessagesBody({ messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] })),
    ).toBe('400 unsupported_content');
    expect(
      codeOf(() =>
        checkMessagesBody({
          messages: [
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'image' }] }] },
          ],
        }),
      ),
    ).toBe('400 unsupported_content');
    expect(codeOf(() => checkMessagesBody({ messages: [], tools: [{ type: 'bash_20250124', name: 'bash' }] }))).toBe(
      '400 unsupported_tool',
    );
    expect(
      codeOf(() =>
        checkMessagesBody({ messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'calc', input_schema: {} }] }),
      ),
    ).toBeNull();
  });
});

describe('Message objects', () => {
  it('gives back exactly the assistant message an answer stood for (property)', () => {
    const arb = fc.record({
      content: fc.string({ maxLength: 30 }),
      calls: fc.array(fc.constantFrom('{}', '{"a":1}', '{"q":"r s"}'), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(arb, ({ content, calls }) => {
        const toolCalls = calls.map((args, i) => ({
          id: `call_x_${i}`,
          type: 'function' as const,
          function: { name: 'calc', arguments: args },
        }));
        const m: ChatMessage =
          toolCalls.length > 0
            ? { role: 'assistant', content: content === '' ? null : content, tool_calls: toolCalls }
            : { role: 'assistant', content };
        const content2 = blocksOfMessage(m, false).map(contentBlock);
        const back = messagesToChatMessages(
          MessagesRequestSchema.parse({
            model: 'm',
            max_tokens: 1,
            messages: [{ role: 'assistant', content: content2 }],
          }),
        );
        expect(back).toEqual([m]);
      }),
    );
  });

  it('maps finish reasons to stop reasons and usage to Anthropic usage', () => {
    const m = messageObject(
      'msg_1',
      'm',
      [{ type: 'tool_call', id: 'c', name: 'calc', arguments: '{"a":1}' }],
      'tool_calls',
      usage,
    );
    expect(m).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'tool_use', id: 'c', name: 'calc', input: { a: 1 } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    expect(messageObject('i', 'm', [], 'length', usage)['stop_reason']).toBe('max_tokens');
    expect(messageObject('i', 'm', [], 'stop', usage)['stop_reason']).toBe('end_turn');
  });

  it('streams message_start, blocks with their deltas, message_delta and message_stop', () => {
    const s = new MessagesStream('msg_1', 'm');
    const events = [
      ...s.push({ kind: 'content', text: 'Hi' }),
      ...s.push({ kind: 'tool_call_start', index: 0, id: 'c', name: 'calc' }),
      ...s.push({ kind: 'tool_call_args', index: 0, text: '{"a":1}' }),
      ...s.push({
        kind: 'tool_call_end',
        index: 0,
        call: { id: 'c', type: 'function', function: { name: 'calc', arguments: '{"a":1}' } },
      }),
      ...s.finish('tool_calls', usage).events,
    ];
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[7]).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: { input_tokens: 3, output_tokens: 2 },
    });
    const empty = new MessagesStream('msg_2', 'm').finish('stop', usage).events.map((e) => e.type);
    expect(empty).toEqual(['message_start', 'message_delta', 'message_stop']);
  });
});
