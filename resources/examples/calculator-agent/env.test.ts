// Tests for the calculator-agent env: opening messages, tool replies, errors, and episode ends.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/shared/chat';
import { runEpisode } from '../../../src/shared/episode';
import { assistantMessageFromText } from '../../../src/shared/tool-calls';
import type { CalcTask } from './dataset';
import { CALC_SYSTEM_PROMPT, calculatorEnv, runCalcCall, UNPARSED_CALL_ERROR } from './env';

const task: CalcTask = {
  id: 'calc-test-0',
  question: 'There are 3 boxes with 4 pens in each box. How many pens are there?',
  expression: '3*4',
  answer: 12,
  template: 'mul-boxes',
};
const call = (name: string, args: string, id = 'c0') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: args },
});

describe('calculatorEnv', () => {
  it('opens with the system prompt and the question, and offers the calc tool', () => {
    expect(calculatorEnv.initialMessages(task)).toEqual([
      { role: 'system', content: CALC_SYSTEM_PROMPT },
      { role: 'user', content: task.question },
    ]);
    expect(calculatorEnv.tools.map((t) => t.function.name)).toEqual(['calc']);
  });

  it('answers every tool call with a tool message carrying its id', () => {
    const a: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [call('calc', '{"expression":"3*4"}', 'a'), call('calc', '{"expression":"(1+"}', 'b')],
    };
    expect(calculatorEnv.respond(task, [], a)).toEqual({
      kind: 'continue',
      messages: [
        { role: 'tool', content: '12', tool_call_id: 'a', name: 'calc' },
        { role: 'tool', content: 'error: unexpected end of expression', tool_call_id: 'b', name: 'calc' },
      ],
    });
  });

  it('replies with an error to a block the parser left in the content', () => {
    const a = assistantMessageFromText('<tool_call>\n{"name": "calc", "arguments": "3*4"}\n</tool_call>', 't0');
    expect(calculatorEnv.respond(task, [], a)).toEqual({
      kind: 'continue',
      messages: [{ role: 'tool', content: UNPARSED_CALL_ERROR, name: 'calc' }],
    });
  });

  it('is done after a plain answer', () => {
    expect(calculatorEnv.respond(task, [], { role: 'assistant', content: '#### 12' })).toEqual({ kind: 'done' });
    expect(calculatorEnv.respond(task, [], { role: 'assistant', content: null })).toEqual({ kind: 'done' });
  });

  it('runs a full episode with a FAKE scripted policy', async () => {
    const script = [
      '<tool_call>\n{"name": "calc", "arguments": {"expression": "3*4"}}\n</tool_call>',
      'The answer is 12.\n#### 12',
    ];
    let i = 0;
    const fakeScriptedPolicy = async (): Promise<ChatMessage> => assistantMessageFromText(script[i++]!, `t${i}`);
    const r = await runEpisode(calculatorEnv, task, fakeScriptedPolicy);
    expect(r.success).toBe(true);
    expect(r.turns).toBe(2);
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(r.metrics['used_tool']).toBe(1);
  });

  it('stops a policy that only ever calls tools at maxTurns', async () => {
    const fakeLoopingPolicy = async (): Promise<ChatMessage> => ({
      role: 'assistant',
      content: null,
      tool_calls: [call('calc', '{"expression":"1"}')],
    });
    const r = await runEpisode(calculatorEnv, task, fakeLoopingPolicy);
    expect(r.turns).toBe(calculatorEnv.maxTurns);
    expect(r.truncated).toBe(true);
    expect(r.reward).toBe(0);
  });
});

describe('runCalcCall', () => {
  it.each([
    [call('calc', '{"expression":"2+3*4"}'), '14'],
    [call('calc', '{"expression":"7/2"}'), '3.5'],
    [call('calc', '{"expression":"2+"}'), 'error: unexpected end of expression'],
    [call('calc', 'not json'), 'error: arguments are not valid JSON'],
    [call('calc', '{"expr":"1"}'), 'error: arguments must be {"expression": "<text>"}'],
    [call('calc', '{"expression":5}'), 'error: arguments must be {"expression": "<text>"}'],
    [call('search', '{}'), "error: unknown tool 'search'"],
  ])('%j -> %s', (c, reply) => expect(runCalcCall(c)).toBe(reply));
});
