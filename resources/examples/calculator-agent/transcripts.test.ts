// Tests for the synthetic calculator-agent transcripts: each behaviour's shape and the overall
// success fraction (imperfect on purpose, but mostly right).
import { describe, expect, it } from 'vitest';
import { createPrng, deriveSeed } from '../../../src/shared/prng';
import { assistantTurns } from '../../../src/shared/task';
import { formatToolCalls, parseToolCalls } from '../../../src/shared/tool-calls';
import { generateCalcTasks } from './dataset';
import { UNPARSED_CALL_ERROR } from './env';
import { calcTranscript, nearMiss, wrongExpression, type CalcBehaviour } from './transcripts';

const tasks = generateCalcTasks('train', 1000);
const task = tasks[0]!;

describe('calcTranscript', () => {
  it('correct: a calc call with the right expression, the tool value, then the answer line', () => {
    const { episode } = calcTranscript(task, createPrng(1), 'correct');
    const [call, answer] = assistantTurns(episode.messages);
    expect(episode.turns).toBe(2);
    expect(call?.content).toBeNull();
    expect(call?.tool_calls?.[0]?.function).toEqual({
      name: 'calc',
      arguments: JSON.stringify({ expression: task.expression }),
    });
    expect(episode.messages[3]).toMatchObject({ role: 'tool', content: String(task.answer) });
    expect(answer?.content).toBe(`The answer is ${task.answer}.\n#### ${task.answer}`);
    expect(episode.success).toBe(true);
  });

  it('skip_tool: one turn with a near-miss answer', () => {
    const { episode } = calcTranscript(task, createPrng(2), 'skip_tool');
    expect(episode.turns).toBe(1);
    expect(episode.metrics['used_tool']).toBe(0);
    expect(episode.success).toBe(false);
  });

  it('malformed: an unreadable block, the env error, then a guess', () => {
    for (let s = 0; s < 20; s++) {
      const { episode } = calcTranscript(task, createPrng(s), 'malformed');
      const first = assistantTurns(episode.messages)[0]!;
      expect(parseToolCalls(first.content ?? '', 'x').malformed).toBe(1);
      expect(first.tool_calls).toBeUndefined();
      expect(episode.messages[3]?.content).toBe(UNPARSED_CALL_ERROR);
      expect(episode.metrics['answered']).toBe(1);
      expect(episode.metrics['malformed_calls']).toBe(1);
    }
  });

  it('wrong_expression: the tool is used on another expression and its value is answered', () => {
    for (const t of tasks.slice(0, 50)) {
      const { behaviour, episode } = calcTranscript(t, createPrng(3), 'wrong_expression');
      expect(behaviour).toBe('wrong_expression');
      const call = assistantTurns(episode.messages)[0]!.tool_calls![0]!;
      expect(call.function.arguments).not.toBe(JSON.stringify({ expression: t.expression }));
      const value = episode.messages[3]!.content!;
      expect(assistantTurns(episode.messages)[1]?.content).toBe(`The answer is ${value}.\n#### ${value}`);
      expect(episode.success).toBe(false);
    }
  });

  it('renders every assistant turn so that parsing the rendering gives the turn back', () => {
    for (const t of tasks.slice(0, 200)) {
      const { episode } = calcTranscript(t, createPrng(deriveSeed(4, t.id)));
      assistantTurns(episode.messages).forEach((m, i) => {
        const back = parseToolCalls(formatToolCalls(m.content, m.tool_calls ?? []), `t${i}`);
        expect(back.content).toBe(m.content);
        expect(back.toolCalls).toEqual(m.tool_calls ?? []);
      });
    }
  });

  it('is deterministic for a PRNG seed', () => {
    expect(calcTranscript(task, createPrng(9))).toEqual(calcTranscript(task, createPrng(9)));
  });

  it('mixes behaviours so that about two thirds succeed', () => {
    const counts: Record<CalcBehaviour, number> = { correct: 0, skip_tool: 0, malformed: 0, wrong_expression: 0 };
    let successes = 0;
    for (const t of tasks) {
      const { behaviour, episode } = calcTranscript(t, createPrng(deriveSeed(5, t.id)));
      counts[behaviour]++;
      if (episode.success) successes++;
    }
    const frac = (n: number): number => n / tasks.length;
    expect(frac(successes)).toBeGreaterThan(0.6);
    expect(frac(successes)).toBeLessThan(0.74);
    expect(frac(counts.correct)).toBeGreaterThan(0.58);
    expect(frac(counts.correct)).toBeLessThan(0.72);
    for (const b of ['skip_tool', 'malformed', 'wrong_expression'] as const) {
      expect(frac(counts[b])).toBeGreaterThan(0.06);
      expect(frac(counts[b])).toBeLessThan(0.18);
    }
  });
});

describe('helpers', () => {
  it('nearMiss never returns the answer or a negative number', () => {
    const r = createPrng(6);
    for (let a = 0; a < 50; a++) {
      const m = nearMiss(a, r);
      expect(m).not.toBe(a);
      expect(m).toBeGreaterThanOrEqual(0);
      expect(Math.abs(m - a)).toBeLessThanOrEqual(3);
    }
  });

  it('wrongExpression changes one operator or swaps operands', () => {
    const t = { id: 'x', question: '', expression: '12-5', answer: 7, template: 'sub-eats' };
    const seen = new Set<string>();
    const r = createPrng(7);
    for (let i = 0; i < 100; i++) seen.add(wrongExpression(t, r) ?? 'none');
    expect([...seen].every((e) => ['12+5', '12*5', '5-12', '12/5'].includes(e))).toBe(true);
    expect(seen.has('12+5')).toBe(true);
    expect(seen.has('12/5')).toBe(false);
  });
});
