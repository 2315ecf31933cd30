import { describe, expect, it } from 'vitest';
import { MessagesRequestSchema } from './messages/schema';
import { checkMessagesBody, messagesToChat } from './messages/translate';
import { checkBodyDepth, checkChatBody, checkRequestLimits } from './request-limits';
import { ResponsesRequestSchema } from './responses/schema';
import { checkResponsesBody, responsesToChat } from './responses/translate';
import { SwarmError } from './swarm-error';
import { REQUEST_LIMITS, type ChatCompletionRequest } from './swarm-protocol';

/** The 400 a check throws (fails the test when it throws nothing or something else). */
function refusal(fn: () => void): SwarmError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SwarmError);
    expect((err as SwarmError).status).toBe(400);
    return err as SwarmError;
  }
  throw new Error('expected a 400');
}

const nestText = (levels: number): string => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
const nestValue = (levels: number): Record<string, unknown> => JSON.parse(nestText(levels)) as Record<string, unknown>;
const user = (content: string) => ({ role: 'user' as const, content });
const call = (args: string) => ({
  role: 'assistant' as const,
  content: null,
  tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'f', arguments: args } }],
});
const tool = (name: string, parameters: Record<string, unknown> = {}, description = '') => ({
  type: 'function' as const,
  function: { name, description, parameters },
});
const chat = (over: Partial<ChatCompletionRequest>): ChatCompletionRequest => ({ messages: [user('hi')], ...over });

describe('checkRequestLimits (every API, after translation)', () => {
  it('accepts a request at every limit', () => {
    expect(() =>
      checkRequestLimits(
        chat({
          messages: [
            ...Array.from({ length: REQUEST_LIMITS.messages - 2 }, () => user('x')),
            user('y'.repeat(REQUEST_LIMITS.messageChars)),
            call(nestText(REQUEST_LIMITS.jsonDepth)),
          ],
          tools: Array.from({ length: REQUEST_LIMITS.tools }, (_, i) =>
            tool(`t${i}`, nestValue(REQUEST_LIMITS.jsonDepth)),
          ),
        }),
      ),
    ).not.toThrow();
  });

  it.each([
    [
      'messages',
      chat({ messages: Array.from({ length: 2049 }, () => user('x')) }),
      'invalid_request',
      /^messages: at most 2048 messages per request; this one has 2049/,
    ],
    [
      'a long message',
      chat({ messages: [user('x'), user('y'.repeat((1 << 20) + 1))] }),
      'invalid_request',
      /^messages\[1\]: the message is longer than this server's limit of 1048576/,
    ],
    [
      'long arguments',
      chat({ messages: [call(`"${'z'.repeat(1 << 20)}"`)] }),
      'invalid_request',
      /^messages\[0\]\.tool_calls\[0\]\.function\.arguments: a tool call's arguments is longer/,
    ],
    [
      'deep arguments',
      chat({ messages: [user('x'), call(nestText(1000))] }),
      'too_deep',
      /^messages\[1\]\.tool_calls\[0\]\.function\.arguments nests deeper than 64 levels \(at a\.a\.a\.a\.a\.a…\)/,
    ],
    [
      'tools',
      chat({ tools: Array.from({ length: 129 }, (_, i) => tool(`t${i}`)) }),
      'invalid_request',
      /^tools: at most 128 tools per request; this one has 129/,
    ],
    [
      'a long tool',
      chat({ tools: [tool('t0'), tool('big', {}, 'd'.repeat(40_000))] }),
      'invalid_request',
      /^tools\[1\]: tool "big" is longer than this server's limit of 32768/,
    ],
    [
      'long tools together',
      chat({ tools: Array.from({ length: 10 }, (_, i) => tool(`t${i}`, {}, 'd'.repeat(30_000))) }),
      'invalid_request',
      /^tools: the tools together is longer than this server's limit of 262144/,
    ],
    [
      'a deep schema',
      chat({ tools: [tool('deep', nestValue(65))] }),
      'too_deep',
      /^tools\[0\]\.function\.parameters nests deeper than 64 levels/,
    ],
  ])('refuses %s with a 400 naming the field', (_name, req, code, message) => {
    const err = refusal(() => checkRequestLimits(req));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });
});

describe('bounds before parsing and translating', () => {
  it('refuses a body nested deeper than the limit, naming where', () => {
    const body = `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nestText(1000)}}}]}`;
    const err = refusal(() => checkBodyDepth(body));
    expect(err.code).toBe('too_deep');
    expect(err.message).toMatch(/^tools\[0\]\.function\.parameters\.a\.a… nests deeper than 64 levels/);
    expect(() => checkBodyDepth(`{"tools":[{"function":{"parameters":${nestText(60)}}}]}`)).not.toThrow();
    expect(refusal(() => checkBodyDepth('['.repeat(100) + ']'.repeat(100))).message).toMatch(/^\[0\]\[0\]/);
  });

  it('refuses a chat body with too many messages or tools before validating them', () => {
    const messages = Array.from({ length: 10_000 }, () => ({ role: 'user', content: 'x' }));
    expect(refusal(() => checkChatBody({ messages })).message).toMatch(
      /^messages: at most 2048 messages per request; this one has 10000/,
    );
    expect(
      refusal(() => checkChatBody({ messages: [], tools: Array.from({ length: 200 }, () => ({})) })).message,
    ).toMatch(/^tools: at most 128 tools/);
    expect(() => checkChatBody({ messages: messages.slice(0, 2048), tools: 'not an array' })).not.toThrow();
  });

  it('refuses a Messages body of 126,000 tool_result blocks before translating it', () => {
    const blocks = Array.from({ length: 9000 }, (_, i) => ({
      type: 'tool_result',
      tool_use_id: `t${i}`,
      content: 'ok',
    }));
    const body = {
      model: 'm',
      max_tokens: 8,
      messages: Array.from({ length: 14 }, () => ({ role: 'user', content: blocks })),
    };
    const err = refusal(() => checkMessagesBody(body));
    expect(err.message).toMatch(
      /^messages: 126000 content blocks and items in one request; this server accepts at most 8192/,
    );
  });

  it('counts tool_result contents too', () => {
    const inner = Array.from({ length: 9000 }, () => ({ type: 'text', text: 'x' }));
    const body = {
      model: 'm',
      max_tokens: 8,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: inner }] }],
    };
    expect(refusal(() => checkMessagesBody(body)).message).toMatch(/^messages: 9001 content blocks/);
  });

  it('refuses a Messages request whose translation breaks a chat limit (a 2 M-character message, 2,049 messages)', () => {
    const long = MessagesRequestSchema.parse({
      model: 'm',
      max_tokens: 8,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(2_000_000) }] }],
    });
    expect(refusal(() => checkRequestLimits(messagesToChat(long))).message).toMatch(
      /^messages\[0\]: the message is longer/,
    );
    const results = Array.from({ length: 2049 }, (_, i) => ({
      type: 'tool_result',
      tool_use_id: `t${i}`,
      content: 'ok',
    }));
    const body = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: results }] };
    expect(() => checkMessagesBody(body)).not.toThrow();
    const many = messagesToChat(MessagesRequestSchema.parse(body));
    expect(refusal(() => checkRequestLimits(many)).message).toMatch(/this one has 2049 \(counted as chat messages\)/);
  });

  it('refuses deep Responses function_call arguments by their input field, and too many items', () => {
    const deep = { input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: nestText(1000) }] };
    const err = refusal(() => checkResponsesBody(deep));
    expect(err.code).toBe('too_deep');
    expect(err.message).toMatch(/^input\[0\]\.arguments nests deeper than 64 levels/);
    const items = { input: Array.from({ length: 8193 }, () => ({ role: 'user', content: 'x' })) };
    expect(refusal(() => checkResponsesBody(items)).message).toMatch(/^input: 8193 content blocks and items/);
    const parts = {
      input: [
        { role: 'user', content: Array.from({ length: 3000 }, () => ({ type: 'input_text', text: 'x'.repeat(400) })) },
      ],
    };
    expect(() => checkResponsesBody(parts)).not.toThrow();
    const { chat: translated } = responsesToChat(ResponsesRequestSchema.parse(parts), null);
    expect(refusal(() => checkRequestLimits(translated)).message).toMatch(/^messages\[0\]: the message is longer/);
  });
});
