// The family parsers on the formats as the model cards and chat templates document them, streamed
// one character at a time and whole (the same reply either way), and their stream invariants.
import { describe, expect, it } from 'vitest';
import type { Tool } from '../chat';
import { createReplyParser, parseReply, type ParserChoice } from './registry';
import type { ParsedReply, ReplyEvent } from './types';

function streamed(
  choice: ParserChoice,
  text: string,
  tools: Tool[] | null = null,
): { events: ReplyEvent[]; parsed: ParsedReply } {
  const p = createReplyParser(choice, { idPrefix: 't', parseTools: true, tools });
  const events: ReplyEvent[] = [];
  for (const ch of text) events.push(...p.push(ch));
  events.push(...p.finish());
  return { events, parsed: p.result() };
}

/** Both ways, checked against each other and the stream invariants; returns the parsed reply. */
function parse(choice: ParserChoice, text: string, tools: Tool[] | null = null): ParsedReply {
  const whole = parseReply(choice, { idPrefix: 't', parseTools: true, tools }, text);
  const chars = streamed(choice, text, tools);
  expect(chars.parsed).toEqual(whole.parsed);
  for (const { events, parsed } of [whole, chars]) {
    const content = events.flatMap((e) => (e.kind === 'content' ? [e.text] : [])).join('');
    expect(content === '' ? null : content).toBe(parsed.content);
    const reasoning = events.flatMap((e) => (e.kind === 'reasoning' ? [e.text] : [])).join('');
    expect(reasoning === '' ? null : reasoning).toBe(parsed.reasoning);
    parsed.toolCalls.forEach((call, i) => {
      const args = events.flatMap((e) => (e.kind === 'tool_call_args' && e.index === i ? [e.text] : [])).join('');
      expect(args).toBe(call.function.arguments);
      const start = events.findIndex((e) => e.kind === 'tool_call_start' && e.index === i);
      const end = events.findIndex((e) => e.kind === 'tool_call_end' && e.index === i);
      expect(start).toBeGreaterThanOrEqual(0);
      expect(end).toBeGreaterThan(start);
    });
  }
  return whole.parsed;
}

const calls = (p: ParsedReply): [string, string][] => p.toolCalls.map((c) => [c.function.name, c.function.arguments]);

describe('llama3_json', () => {
  const llama: ParserChoice = { tool: 'llama3_json', reasoning: 'none' };
  it('parses the model card JSON call, with and without <|python_tag|>', () => {
    const text = '{"name": "get_weather", "parameters": {"city": "Paris", "days": 2}}';
    expect(calls(parse(llama, text))).toEqual([['get_weather', '{"city":"Paris","days":2}']]);
    expect(calls(parse(llama, `<|python_tag|>${text}`))).toEqual([['get_weather', '{"city":"Paris","days":2}']]);
    expect(parse(llama, text).content).toBeNull();
  });
  it('parses several calls separated by ";" and accepts "arguments"', () => {
    const text = '{"name": "a", "parameters": {}}; {"name": "b", "arguments": {"x": [1, 2]}}';
    expect(calls(parse(llama, text))).toEqual([
      ['a', '{}'],
      ['b', '{"x":[1,2]}'],
    ]);
  });
  it('leaves plain text and non-call JSON as content', () => {
    expect(parse(llama, 'The weather is fine.')).toMatchObject({ content: 'The weather is fine.', toolCalls: [] });
    const p = parse(llama, '{"answer": 42}');
    expect(p).toMatchObject({ content: '{"answer": 42}', toolCalls: [], malformed: 1 });
  });
  it('closes a call cut short and counts it malformed', () => {
    const p = parse(llama, '{"name": "f", "parameters": {"q": "ab');
    expect(calls(p)).toEqual([['f', '{"q":"ab"}']]);
    expect(p.malformed).toBe(1);
  });
  it('starts the call as soon as the name is known and the arguments begin', () => {
    const p = createReplyParser(llama, { idPrefix: 't', parseTools: true, tools: null });
    expect(p.push('{"name": "f", ').some((e) => e.kind === 'tool_call_start')).toBe(false);
    expect(p.push('"parameters": {"q"').some((e) => e.kind === 'tool_call_start')).toBe(true);
  });
});

describe('deepseek_v3', () => {
  const ds: ParserChoice = { tool: 'deepseek_v3', reasoning: 'none' };
  const call = (name: string, args: string): string =>
    `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;
  it('parses the template form, several calls, text before', () => {
    const text = `Let me check.<｜tool▁calls▁begin｜>${call('get_weather', '{"city": "Paris"}')}\n${call('t', '{}')}<｜tool▁calls▁end｜>`;
    const p = parse(ds, text);
    expect(calls(p)).toEqual([
      ['get_weather', '{"city":"Paris"}'],
      ['t', '{}'],
    ]);
    expect(p.content).toBe('Let me check.');
    expect(p.malformed).toBe(0);
  });
  it('parses the V3.1 form', () => {
    const text =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    expect(calls(parse(ds, text))).toEqual([['f', '{"a":1}']]);
  });
  it('keeps a block without a name as content, malformed', () => {
    const p = parse(ds, '<｜tool▁call▁begin｜>garbage<｜tool▁call▁end｜>');
    expect(p.toolCalls).toEqual([]);
    expect(p.malformed).toBe(1);
  });
});

describe('qwen3_coder', () => {
  const xml: ParserChoice = { tool: 'qwen3_coder', reasoning: 'none' };
  const tools: Tool[] = [
    {
      type: 'function',
      function: {
        name: 'run',
        parameters: { type: 'object', properties: { cmd: { type: 'string' }, n: { type: 'integer' } } },
      },
    },
  ];
  it('parses the template form with typed parameters', () => {
    const text =
      'Running it.\n<tool_call>\n<function=run>\n<parameter=cmd>\n42\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>';
    const p = parse(xml, text, tools);
    expect(calls(p)).toEqual([['run', '{"cmd":"42","n":3}']]);
    expect(p.content).toBe('Running it.');
  });
  it('parses a multi-line string value and a call with no parameters', () => {
    const text =
      '<tool_call>\n<function=run>\n<parameter=cmd>\nls\n-la\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=noop>\n</function>\n</tool_call>';
    expect(calls(parse(xml, text, tools))).toEqual([
      ['run', '{"cmd":"ls\\n-la"}'],
      ['noop', '{}'],
    ]);
  });
});

describe('harmony', () => {
  const h: ParserChoice = { tool: 'harmony', reasoning: 'harmony' };
  it('splits analysis reasoning from the final answer', () => {
    const p = parse(
      h,
      '<|channel|>analysis<|message|>User asks 2+2.<|end|><|start|>assistant<|channel|>final<|message|>4',
    );
    expect(p).toMatchObject({ reasoning: 'User asks 2+2.', content: '4', toolCalls: [] });
  });
  it('parses a function call with the recipient after or before the channel', () => {
    const a = parse(
      h,
      '<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Tokyo"}<|call|>',
    );
    expect(calls(a)).toEqual([['get_weather', '{"location":"Tokyo"}']]);
    expect(a.reasoning).toBe('Need weather.');
    const b = parse(h, ' to=functions.f<|channel|>commentary json<|message|>{}');
    expect(calls(b)).toEqual([['f', '{}']]);
  });
});

describe('think', () => {
  const qwen3: ParserChoice = { tool: 'hermes', reasoning: 'think' };
  it('splits <think> reasoning as Qwen3 writes it, tool calls after it', () => {
    const text =
      '<think>\nI should call it.\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>';
    const p = parse(qwen3, text);
    expect(p.reasoning).toBe('I should call it.');
    expect(calls(p)).toEqual([['f', '{"a":1}']]);
    expect(p.content).toBeNull();
  });
  it('keeps replies without <think> as content and an unclosed one as reasoning', () => {
    expect(parse(qwen3, 'Hello')).toMatchObject({ content: 'Hello', reasoning: null });
    expect(parse(qwen3, '<think>\nhmm')).toMatchObject({ content: null, reasoning: 'hmm' });
  });
  it('reasons from the first character when the prompt opened <think>', () => {
    const p = createReplyParser(qwen3, { idPrefix: 't', parseTools: true, tools: null, startsInsideThink: true });
    p.push('a plan</think>\n\nAnswer');
    p.finish();
    expect(p.result()).toMatchObject({ reasoning: 'a plan', content: 'Answer' });
  });
});
