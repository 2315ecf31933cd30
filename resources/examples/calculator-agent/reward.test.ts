// Tests for the calculator-agent reward: answer-line parsing, success, and metrics.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/shared/chat';
import { toolResult, user } from '../../../src/shared/chat';
import { calcScore, parseFinalAnswer } from './reward';

const say = (content: string | null, calls = 0): ChatMessage => ({
  role: 'assistant',
  content,
  ...(calls > 0
    ? {
        tool_calls: Array.from({ length: calls }, (_, i) => ({
          id: `c${i}`,
          type: 'function' as const,
          function: { name: 'calc', arguments: '{"expression":"1+1"}' },
        })),
      }
    : {}),
});

describe('parseFinalAnswer', () => {
  it.each([
    ['The answer is 8.\n#### 8', 8],
    ['#### 8', 8],
    ['####8', 8],
    ['#### -3', -3],
    ['#### 2.5', 2.5],
    ['The answer is 8.\n#### 8\n\n', 8],
  ])('%j -> %d', (text, n) => expect(parseFinalAnswer(text)).toBe(n));

  it.each([['The answer is 8.'], ['#### 8\nthanks'], ['#### eight'], ['#### 8 apples'], [''], [null]])(
    '%j -> null',
    (text) => {
      expect(parseFinalAnswer(text)).toBeNull();
    },
  );
});

describe('calcScore', () => {
  const task = { answer: 12 };

  it('rewards a correct final answer after a tool call', () => {
    const h = [user('q'), say(null, 1), toolResult('c0', '12', 'calc'), say('The answer is 12.\n#### 12')];
    expect(calcScore(task, h)).toEqual({
      reward: 1,
      success: true,
      metrics: { used_tool: 1, malformed_calls: 0, tool_errors: 0, answered: 1, turns: 2 },
    });
  });

  it('rewards a correct answer without the tool too (the reward is on the answer only)', () => {
    const r = calcScore(task, [user('q'), say('#### 12')]);
    expect(r.reward).toBe(1);
    expect(r.metrics['used_tool']).toBe(0);
  });

  it('gives 0 for a wrong number, a missing answer line, or a final turn that is a tool call', () => {
    expect(calcScore(task, [say('#### 13')]).reward).toBe(0);
    expect(calcScore(task, [say('The answer is 12.')]).metrics['answered']).toBe(0);
    expect(calcScore(task, [say('#### 12'), say(null, 1)]).success).toBe(false);
    expect(calcScore(task, [user('q')]).reward).toBe(0);
  });

  it('only reads the final assistant turn', () => {
    expect(calcScore(task, [say('#### 12'), user('sure?'), say('#### 11')]).reward).toBe(0);
  });

  it('counts malformed calls and tool errors', () => {
    const h = [
      say('<tool_call>\n{"name": "calc"\n</tool_call>'),
      { role: 'tool' as const, content: 'error: could not parse tool call' },
      say('#### 3'),
    ];
    const r = calcScore(task, h);
    expect(r.metrics).toMatchObject({ malformed_calls: 1, tool_errors: 1, used_tool: 0, turns: 2 });
  });
});
