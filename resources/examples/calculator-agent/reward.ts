// Calculator-agent reward: 1 when the last line of the final assistant turn is `#### <answer>`.
// Pure: a function of the task's answer and the episode's messages, plus diagnostic metrics.
import type { ChatMessage } from '../../../src/shared/chat';
import { TOOL_CALL_OPEN } from '../../../src/shared/tool-calls';
import { assistantTurns, type TaskScore } from '../../../src/shared/task';

const ANSWER_LINE = /^####\s*(-?\d+(?:\.\d+)?)\s*$/;

/** The number on the `#### N` last line of a text, or null. */
export function parseFinalAnswer(content: string | null): number | null {
  const lines = (content ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const match = ANSWER_LINE.exec(lines.at(-1) ?? '');
  return match ? Number(match[1]) : null;
}

/** `<tool_call>` blocks left in assistant content: calls the server could not read. */
const malformedCalls = (m: ChatMessage): number => (m.content ?? '').split(TOOL_CALL_OPEN).length - 1;

export function calcScore(task: { answer: number }, history: readonly ChatMessage[]): TaskScore {
  const turns = assistantTurns(history);
  const final = turns.at(-1);
  const answer = final && (final.tool_calls ?? []).length === 0 ? parseFinalAnswer(final.content) : null;
  const success = answer !== null && Math.abs(answer - task.answer) < 1e-9;
  const usedTool = turns.some((m) => (m.tool_calls ?? []).some((tc) => tc.function.name === 'calc'));
  return {
    reward: success ? 1 : 0,
    success,
    metrics: {
      used_tool: usedTool ? 1 : 0,
      malformed_calls: turns.reduce((n, m) => n + malformedCalls(m), 0),
      tool_errors: history.filter((m) => m.role === 'tool' && (m.content ?? '').startsWith('error:')).length,
      answered: answer === null ? 0 : 1,
      turns: turns.length,
    },
  };
}
