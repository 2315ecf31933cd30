// Calculator-agent environment: a word problem, a `calc` tool evaluated safely, and an answer
// line `#### N`. Tool calls get tool results; unreadable calls get an error; plain text ends it.
import { z } from 'zod';
import { system, toolResult, user, type ChatMessage, type Tool, type ToolCall } from '../../../src/shared/chat';
import type { TaskEnv } from '../../../src/shared/task';
import { TOOL_CALL_OPEN } from '../../../src/shared/tool-calls';
import { calcToolReply } from './calc';
import type { CalcTask } from './dataset';
import { calcScore } from './reward';

export const CALC_SYSTEM_PROMPT = 'You are a calculator agent. Use the calc tool, then answer as #### <number>.';
export const UNPARSED_CALL_ERROR = 'error: could not parse tool call';

export const CALC_TOOL: Tool = {
  type: 'function',
  function: {
    name: 'calc',
    description: 'Evaluate an arithmetic expression.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  },
};

const CalcArgsSchema = z.object({ expression: z.string() });

/** The tool's reply to one call. */
export function runCalcCall(call: ToolCall): string {
  if (call.function.name !== 'calc') return `error: unknown tool '${call.function.name}'`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.function.arguments);
  } catch {
    return 'error: arguments are not valid JSON';
  }
  const args = CalcArgsSchema.safeParse(parsed);
  return args.success ? calcToolReply(args.data.expression) : 'error: arguments must be {"expression": "<text>"}';
}

export const calculatorEnv: TaskEnv<CalcTask> = {
  name: 'calculator-agent',
  tools: [CALC_TOOL],
  maxTurns: 4,
  initialMessages: (task) => [system(CALC_SYSTEM_PROMPT), user(task.question)],
  respond: (_task, _history, assistant) => {
    const calls = assistant.tool_calls ?? [];
    if (calls.length > 0) {
      return { kind: 'continue', messages: calls.map((tc) => toolResult(tc.id, runCalcCall(tc), tc.function.name)) };
    }
    if ((assistant.content ?? '').includes(TOOL_CALL_OPEN)) {
      const reply: ChatMessage = { role: 'tool', content: UNPARSED_CALL_ERROR, name: 'calc' };
      return { kind: 'continue', messages: [reply] };
    }
    return { kind: 'done' };
  },
  score: (task, history) => calcScore(task, history),
};
