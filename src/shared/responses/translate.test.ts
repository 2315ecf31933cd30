import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../chat';
import { SwarmError } from '../swarm-error';
import { blocksOfMessage } from '../stream-blocks';
import { messageKey } from '../timeline/message-key';
import { InputItemSchema, ResponsesRequestSchema, type ResponsesRequest } from './schema';
import { ResponsesStream } from './streaming';
import {
  checkResponsesBody,
  itemsToMessages,
  outputItem,
  responseObject,
  responsesToChat,
  type ResponseMeta,
} from './translate';

const meta: ResponseMeta = { id: 'resp_x_0', createdAt: 1, model: 'm', itemBase: 'x_0' };
const req = (body: Record<string, unknown>): ResponsesRequest => ResponsesRequestSchema.parse(body);
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

describe('responsesToChat', () => {
  it('puts instructions first, a string input as the user message, and maps tools, tool_choice and limits', () => {
    const { chat, conversation } = responsesToChat(
      req({
        input: 'hi',
        instructions: 'be brief',
        max_output_tokens: 9,
        temperature: 0.5,
        top_p: 0.9,
        stream: true,
        tools: [{ type: 'function', name: 'calc', description: 'd', parameters: { type: 'object' }, strict: true }],
        tool_choice: { type: 'function', name: 'calc' },
      }),
      null,
    );
    expect(chat.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(conversation).toEqual([{ role: 'user', content: 'hi' }]);
    expect(chat.tools).toEqual([
      { type: 'function', function: { name: 'calc', description: 'd', parameters: { type: 'object' } } },
    ]);
    expect(chat.tool_choice).toEqual({ type: 'function', function: { name: 'calc' } });
    expect(chat).toMatchObject({ max_tokens: 9, temperature: 0.5, top_p: 0.9, stream: true });
  });

  it('continues a previous conversation (instructions not carried over) with the new input', () => {
    const previous: ChatMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ];
    const { chat, conversation } = responsesToChat(req({ input: 'again', instructions: 'sys' }), previous);
    expect(chat.messages.map((m) => m.content)).toEqual(['sys', 'q', 'a', 'again']);
    expect(conversation.map((m) => m.content)).toEqual(['q', 'a', 'again']);
  });

  it('refuses structured formats, reasoning, background, auto truncation and unknown includes', () => {
    expect(codeOf(() => responsesToChat(req({ input: 'x', text: { format: { type: 'json_schema' } } }), null))).toBe(
      '400 response_format_not_supported',
    );
    expect(codeOf(() => responsesToChat(req({ input: 'x', reasoning: { effort: 'low' } }), null))).toBe(
      '400 unsupported_parameter',
    );
    expect(codeOf(() => responsesToChat(req({ input: 'x', background: true }), null))).toBe(
      '400 unsupported_parameter',
    );
    expect(codeOf(() => responsesToChat(req({ input: 'x', truncation: 'auto' }), null))).toBe(
      '400 unsupported_parameter',
    );
    expect(codeOf(() => responsesToChat(req({ input: 'x', include: ['message.output_text.logprobs'] }), null))).toBe(
      '400 unsupported_parameter',
    );
    expect(
      codeOf(() =>
        responsesToChat(
          req({
            input: 'x',
            include: ['reasoning.encrypted_content'],
            reasoning: {},
            truncation: 'disabled',
            store: false,
          }),
          null,
        ),
      ),
    ).toBeNull();
  });
});

describe('checkResponsesBody', () => {
  it('names unknown fields, unsupported item and content types, and hosted tools', () => {
    expect(codeOf(() => checkResponsesBody({ input: 'x', frob: 1 }))).toBe('400 unsupported_parameter');
    expect(codeOf(() => checkResponsesBody({ input: [{ type: 'item_reference', id: 'x' }] }))).toBe(
      '400 unsupported_input_item',
    );
    expect(
      codeOf(() =>
        checkResponsesBody({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] }),
      ),
    ).toBe('400 unsupported_content');
    expect(codeOf(() => checkResponsesBody({ input: 'x', tools: [{ type: 'file_search' }] }))).toBe(
      '400 unsupported_tool',
    );
    expect(
      codeOf(() =>
        checkResponsesBody({
          input: [{ role: 'user', content: [{ type: 'input_text', text: 'x' }] }],
          tools: [{ type: 'function', name: 'f' }],
        }),
      ),
    ).toBeNull();
  });

  it('takes reasoning items sent back as the server returned them (reasoning_text content)', () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'r' }] };
    expect(codeOf(() => checkResponsesBody({ input: [{ role: 'user', content: 'q' }, reasoning] }))).toBeNull();
    const misplaced = { role: 'user', content: [{ type: 'reasoning_text', text: 'r' }] };
    expect(codeOf(() => checkResponsesBody({ input: [misplaced] }))).toBe('400 unsupported_content');
  });
});

describe('itemsToMessages', () => {
  it('joins an assistant message and its function calls into one turn, tool outputs become tool messages', () => {
    const items = [
      { role: 'developer', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'a' },
          { type: 'input_text', text: 'b' },
        ],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me.' }] },
      { type: 'function_call', call_id: 'c1', name: 'calc', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: '5' },
      { type: 'function_call', call_id: 'c2', name: 'calc', arguments: '{"x":1}' },
    ].map((i) => InputItemSchema.parse(i));
    expect(itemsToMessages(items)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'ab' },
      {
        role: 'assistant',
        content: 'Let me.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{}' } }],
      },
      { role: 'tool', content: '5', tool_call_id: 'c1' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'calc', arguments: '{"x":1}' } }],
      },
    ]);
  });

  it('gives back exactly the assistant message an answer stood for, streamed or not (property)', () => {
    const arb = fc.record({
      content: fc.string({ maxLength: 30 }),
      calls: fc.array(fc.constantFrom('{}', '{"a":1}', '{"q":"r"}'), { maxLength: 3 }),
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
        const items = blocksOfMessage(m, true).map((b, i) =>
          InputItemSchema.parse(outputItem(meta, i, b, 'completed')),
        );
        const back = itemsToMessages(items);
        expect(back).toEqual([m]);
        expect(messageKey(back[0]!)).toBe(messageKey(m));
      }),
    );
  });
});

describe('responseObject and ResponsesStream', () => {
  it('builds a completed Response whose output items are message then function calls', () => {
    const m: ChatMessage = {
      role: 'assistant',
      content: 'Hi',
      tool_calls: [{ id: 'call_x_0_0', type: 'function', function: { name: 'calc', arguments: '{}' } }],
    };
    const r = responseObject(meta, req({ input: 'x' }), {
      blocks: blocksOfMessage(m, true),
      finishReason: 'tool_calls',
      usage,
    });
    expect(r).toMatchObject({
      id: 'resp_x_0',
      object: 'response',
      status: 'completed',
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
    expect(r['output']).toEqual([
      {
        type: 'message',
        id: 'msg_x_0_0',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hi', annotations: [], logprobs: [] }],
      },
      {
        type: 'function_call',
        id: 'fc_x_0_1',
        call_id: 'call_x_0_0',
        name: 'calc',
        arguments: '{}',
        status: 'completed',
      },
    ]);
    expect(
      responseObject(meta, req({ input: 'x' }), {
        blocks: [{ type: 'text', text: 'cut' }],
        finishReason: 'length',
        usage,
      }),
    ).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('streams created, item and part events, deltas, done events and completed, numbered in order', () => {
    const s = new ResponsesStream(meta, req({ input: 'x' }));
    const events = [
      ...s.start(),
      ...s.push({ kind: 'content', text: 'Hi' }),
      ...s.push({ kind: 'tool_call_start', index: 0, id: 'c', name: 'calc' }),
      ...s.push({ kind: 'tool_call_args', index: 0, text: '{}' }),
      ...s.push({
        kind: 'tool_call_end',
        index: 0,
        call: { id: 'c', type: 'function', function: { name: 'calc', arguments: '{}' } },
      }),
    ];
    const { events: closing, blocks } = s.finish({ finishReason: 'tool_calls', usage });
    const all = [...events, ...closing];
    expect(all.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    expect(blocks).toHaveLength(2);
    const completed = all.at(-1)!['response'] as { output: unknown[] };
    expect(completed.output).toHaveLength(2);
  });
});
