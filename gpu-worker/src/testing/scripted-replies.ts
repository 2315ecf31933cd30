// Scripted replies for the fake engine: the reply depends on the last message of the rendered
// prompt, so tests can steer the "model" into tool calls, long answers, stop strings or
// malformed blocks.
import type { GenerateRequest } from '../../../src/shared/engine-protocol';

export const CALC_CALL = '<tool_call>\n{"name": "calc", "arguments": {"expression": "2+3"}}\n</tool_call>';

/** The role and text of the last message in a rendered prompt. */
export function lastMessage(prompt: string): { role: string; text: string } {
  const start = prompt.lastIndexOf('<|im_start|>');
  const body = prompt.slice(start + '<|im_start|>'.length).replace(/<\|im_end\|>\n?$/, '');
  const nl = body.indexOf('\n');
  return { role: body.slice(0, nl), text: body.slice(nl + 1) };
}

let attempt = 0;

export function scriptedReply(prompt: string, _req: GenerateRequest): string {
  const last = lastMessage(prompt);
  if (last.role === 'tool') return `The answer is ${last.text}.`;
  const t = last.text;
  if (t.includes('twice'))
    return `${CALC_CALL}\n<tool_call>\n{"name": "lookup", "arguments": {"q": "x"}}\n</tool_call>`;
  if (t.includes('calc')) return `Let me compute.\n${CALC_CALL}`;
  if (t.includes('long')) return 'word '.repeat(100).trim();
  if (t.includes('stop')) return 'alpha beta STOP gamma delta';
  if (t.includes('malformed')) return 'Here: <tool_call>{oops}</tool_call>';
  if (t.includes('sometimes')) return attempt++ % 2 === 0 ? 'no tool this time' : CALC_CALL;
  if (t.includes('unicode')) return 'café 🙂 你好';
  return 'Hello from the fake engine.';
}
