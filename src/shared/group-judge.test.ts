import { describe, expect, it } from 'vitest';
import { firstJsonObject, judgePrompt, JUDGE_SYSTEM, MAX_CONTENT_CHARS, parseJudgeReply } from './group-judge';

describe('judgePrompt', () => {
  it('shows the rubric and every trajectory in order, tool calls included, long contents cut', () => {
    const prompt = judgePrompt('Correct final answer wins.', [
      {
        messages: [
          { role: 'user', content: 'calc 2+3' },
          { role: 'assistant', content: '#### 5' },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'calc 2+3' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"e":"2+3"}' } }],
          },
          { role: 'tool', content: 'x'.repeat(MAX_CONTENT_CHARS + 10), tool_call_id: 'c1' },
        ],
      },
    ]);
    expect(prompt[0]).toEqual({ role: 'system', content: JUDGE_SYSTEM });
    const user = prompt[1]!.content!;
    expect(user.startsWith('Rubric:\nCorrect final answer wins.')).toBe(true);
    expect(user.indexOf('<trajectory id="1">')).toBeLessThan(user.indexOf('<trajectory id="2">'));
    expect(user).toContain('[assistant] #### 5');
    expect(user).toContain('[tool call] calc({"e":"2+3"})');
    expect(user).toContain('… [cut]');
    expect(user).not.toContain('x'.repeat(MAX_CONTENT_CHARS + 1));
  });
});

describe('parseJudgeReply', () => {
  it('reads scores by trajectory id from JSON wrapped in prose or a code fence', () => {
    const reply =
      'Here you go:\n```json\n{"scores": [{"trajectory_id": "2", "score": 0.2}, {"trajectory_id": 1, ' +
      '"explanation": "right {answer}", "score": 0.9}]}\n```';
    expect(parseJudgeReply(reply, 2)).toEqual([0.9, 0.2]);
  });

  it('refuses replies it cannot trust, saying why', () => {
    expect(() => parseJudgeReply('no idea', 2)).toThrow(/without a JSON object/);
    expect(() => parseJudgeReply('{"scores": [', 2)).toThrow(/without a JSON object/);
    expect(() => parseJudgeReply('{"scores": [1, 2]}', 2)).toThrow(/not \{"scores"/);
    expect(() => parseJudgeReply('{"scores": [{"trajectory_id": "1", "score": 1.5}]}', 1)).toThrow(/not \{"scores"/);
    expect(() => parseJudgeReply('{"scores": [{"trajectory_id": "1", "score": 0.5}]}', 2)).toThrow(
      /no score for trajectory 2 of 2/,
    );
  });

  it('finds the first balanced object, ignoring braces inside strings', () => {
    expect(firstJsonObject('a {"k": "}{", "n": {"x": 1}} b {"z": 2}')).toBe('{"k": "}{", "n": {"x": 1}}');
    expect(firstJsonObject('{"unterminated": ')).toBeNull();
  });
});
