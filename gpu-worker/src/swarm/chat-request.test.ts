import { describe, expect, it } from 'vitest';
import { ChatCompletionRequestSchema, TrainingConfigSchema } from '../../../src/shared/swarm-protocol';
import { prepareRequest } from './chat-request';

const cfg = TrainingConfigSchema.parse({ temperature: 1, topP: 1, defaultMaxTokens: 64, maxTokensLimit: 1000 });
const parse = (body: unknown) => ChatCompletionRequestSchema.parse(body);

describe('prepareRequest', () => {
  it("keeps an assistant turn's reasoning_content sent back (templates that show reasoning render it)", () => {
    const messages = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a', reasoning_content: 'because' },
    ];
    const p = prepareRequest(parse({ model: 'm', messages }), cfg, 'eval');
    expect(p.messages[1]).toEqual({ role: 'assistant', content: 'a', reasoning_content: 'because' });
  });

  it('normalises OpenAI messages into the engine shape', () => {
    const p = prepareRequest(
      parse({
        model: 'm',
        messages: [
          {
            role: 'developer',
            content: [
              { type: 'text', text: 'Be ' },
              { type: 'text', text: 'brief.' },
            ],
          },
          { role: 'user', content: 'calc 1+1' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"e":"1+1"}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: '2' },
        ],
        tools: [{ type: 'function', function: { name: 'calc', strict: true } }],
      }),
      cfg,
      'eval',
    );
    expect(p.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'calc 1+1' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"e":"1+1"}' } }],
      },
      { role: 'tool', content: '2', tool_call_id: 'c1' },
    ]);
    expect(p.tools).toEqual([{ type: 'function', function: { name: 'calc' } }]);
    expect(p.toolChoice).toEqual({ mode: 'auto' });
    expect(p.maxTokens).toBe(64);
  });

  it("uses the server sampling for train episodes when forced, the client's for eval", () => {
    const body = parse({
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.2,
      top_p: 0.5,
      seed: -3,
      max_tokens: 10,
      stop: 'END',
    });
    expect(prepareRequest(body, cfg, 'train')).toMatchObject({ temperature: 1, topP: 1, maxTokens: 10, stop: ['END'] });
    expect(prepareRequest(body, cfg, 'eval')).toMatchObject({ temperature: 0.2, topP: 0.5 });
    expect(prepareRequest(body, { ...cfg, forceTrainSampling: false }, 'train')).toMatchObject({ temperature: 0.2 });
    expect(prepareRequest(body, cfg, 'eval').seed).toBeGreaterThanOrEqual(0);
  });

  it('refuses what the server does not do, with codes', () => {
    const m = [{ role: 'user', content: 'x' }];
    expect(() => prepareRequest(parse({ messages: m, n: 2 }), cfg, 'eval')).toThrow(
      expect.objectContaining({ status: 400, code: 'n_not_supported' }),
    );
    expect(() => prepareRequest(parse({ messages: m, max_completion_tokens: 5000 }), cfg, 'eval')).toThrow(
      expect.objectContaining({ code: 'max_tokens_too_large' }),
    );
    expect(() => prepareRequest(parse({ messages: m, tool_choice: 'required' }), cfg, 'eval')).toThrow(
      expect.objectContaining({ code: 'tool_choice_without_tools' }),
    );
    expect(() => prepareRequest(parse({ messages: m, response_format: { type: 'json_object' } }), cfg, 'eval')).toThrow(
      expect.objectContaining({ code: 'response_format_not_supported' }),
    );
    expect(
      prepareRequest(
        parse({ messages: m, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'none' }),
        cfg,
        'eval',
      ).toolChoice,
    ).toEqual({ mode: 'none' });
  });
});
