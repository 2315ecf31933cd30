// Unit tests of the proposer's task generator, prompt and lenient expression parser.
import { describe, expect, it } from 'vitest';
import { generateProposerTasks, parseProposal, proposalText, proposerMessages } from './proposal';

const task = { id: 't', a: 7, b: 5 };

describe('parseProposal', () => {
  it('reads a bare expression and its value', () => {
    expect(parseProposal('7 * (5 + 1)', task)).toEqual({
      ok: true,
      expression: '7 * (5 + 1)',
      value: 42,
      usesOperands: true,
    });
  });
  it('finds the expression inside prose and drops a trailing full stop', () => {
    expect(parseProposal('Sure! Here it is: 7 - 5.', task)).toMatchObject({ ok: true, expression: '7 - 5', value: 2 });
    expect(parseProposal('#### 3 + 4', task)).toMatchObject({ ok: true, value: 7, usesOperands: false });
  });
  it('skips unusable runs and takes the first valid one', () => {
    expect(parseProposal('step 1: (( then 8 / 4', task)).toMatchObject({ ok: true, expression: '8 / 4', value: 2 });
  });
  it('refuses a lone number, division by zero and text without arithmetic', () => {
    expect(parseProposal('12', task)).toEqual({ ok: false, reason: 'trivial: no operator' });
    expect(parseProposal('7 / 0', task)).toMatchObject({ ok: false });
    expect(parseProposal('5/3', task)).toEqual({ ok: false, reason: 'value is not a whole number' });
    expect(parseProposal('hello there', task)).toEqual({ ok: false, reason: 'no arithmetic in the answer' });
    expect(parseProposal(null, task)).toMatchObject({ ok: false });
  });
});

describe('proposalText', () => {
  it('reads calc tool calls and <tool_call> text the tiny model writes', () => {
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'calc', arguments: '{"expression":"15*4"}' },
    };
    expect(parseProposal(proposalText({ content: null, tool_calls: [call] }), task)).toMatchObject({
      ok: true,
      expression: '15*4',
      value: 60,
    });
    const text = '<tool_call>\n{"name": "calc", "arguments": {"expression": 2*12"}}\n</tool_call>';
    expect(parseProposal(proposalText({ content: text }), task)).toMatchObject({
      ok: true,
      expression: '2*12',
      value: 24,
    });
  });
});

describe('proposer tasks', () => {
  it('are deterministic, in range, and named in the prompt', () => {
    const a = generateProposerTasks(20, 3);
    expect(a).toEqual(generateProposerTasks(20, 3));
    expect(new Set(a.map((t) => t.id)).size).toBe(20);
    for (const t of a) expect(Math.min(t.a, t.b) >= 2 && Math.max(t.a, t.b) <= 20).toBe(true);
    expect(proposerMessages(task).at(-1)?.content).toBe('Write an arithmetic expression using 7 and 5.');
  });
});
