// Streaming view of model text with Hermes `<tool_call>` blocks: fed the text generated so far,
// it returns what can be sent to an OpenAI streaming client now — content deltas and completed
// tool calls — such that the concatenated deltas equal `parseToolCalls` of the final text. Text
// inside an open block, a partial `<tool_call` tag, trailing whitespace (a later tool call would
// trim it) and a trailing U+FFFD (half a UTF-8 character) are held back until they settle.
// Pure: text in, deltas out.
import type { ToolCall } from './chat';
import { parseToolCalls, TOOL_CALL_CLOSE, TOOL_CALL_OPEN, type ParsedAssistantText } from './tool-calls';

export interface StreamDelta {
  content: string;
  /** Tool calls completed since the previous delta, with their index in the message. */
  toolCalls: { index: number; call: ToolCall }[];
}

export interface StreamFinish {
  delta: StreamDelta;
  final: ParsedAssistantText;
  /** False when what was already streamed is not a prefix of the final message (counted by the server). */
  consistent: boolean;
}

/** The end of the part of `text` that no later text can turn into (part of) a tool-call block. */
export function settledLength(text: string): number {
  let pos = 0;
  for (;;) {
    const open = text.indexOf(TOOL_CALL_OPEN, pos);
    if (open < 0) break;
    const close = text.indexOf(TOOL_CALL_CLOSE, open + TOOL_CALL_OPEN.length);
    const nextOpen = text.indexOf(TOOL_CALL_OPEN, open + TOOL_CALL_OPEN.length);
    if (close >= 0 && (nextOpen < 0 || close < nextOpen)) pos = close + TOOL_CALL_CLOSE.length;
    else if (nextOpen >= 0) pos = nextOpen; // cut short by another block: malformed, settled as text
    else return open; // open block: wait for its end
  }
  // A suffix that may be the start of an opening tag.
  for (let k = Math.min(TOOL_CALL_OPEN.length - 1, text.length); k > 0; k--) {
    if (TOOL_CALL_OPEN.startsWith(text.slice(text.length - k))) return text.length - k;
  }
  return text.length;
}

export class ToolCallStream {
  private emittedContent = '';
  private emittedCalls: ToolCall[] = [];

  /**
   * @param idPrefix the tool-call id prefix of this call (as given to `parseToolCalls`)
   * @param parseTools false when the reply is plain text (no tools, or `tool_choice: "none"`)
   */
  constructor(
    private readonly idPrefix: string,
    private readonly parseTools: boolean,
  ) {}

  /** `text`: everything generated so far (not a delta). */
  push(text: string): StreamDelta {
    const clean = text.endsWith('\uFFFD') ? text.replace(/\uFFFD+$/, '') : text;
    if (!this.parseTools) return this.advance(clean, []);
    const parsed = parseToolCalls(clean.slice(0, settledLength(clean)), this.idPrefix);
    return this.advance((parsed.content ?? '').trimEnd(), parsed.toolCalls);
  }

  /** `text`: the final generated text. */
  finish(text: string): StreamFinish {
    const final: ParsedAssistantText = this.parseTools ? parseToolCalls(text, this.idPrefix) : { content: text === '' ? null : text, toolCalls: [], malformed: 0 };
    const content = final.content ?? '';
    const consistent =
      content.startsWith(this.emittedContent) &&
      this.emittedCalls.every((c, i) => JSON.stringify(c) === JSON.stringify(final.toolCalls[i]));
    const delta = this.advance(content, final.toolCalls);
    return { delta, final, consistent };
  }

  private advance(content: string, calls: readonly ToolCall[]): StreamDelta {
    let contentDelta = '';
    if (content.length > this.emittedContent.length && content.startsWith(this.emittedContent)) {
      contentDelta = content.slice(this.emittedContent.length);
      this.emittedContent = content;
    }
    const toolCalls: StreamDelta['toolCalls'] = [];
    for (let i = this.emittedCalls.length; i < calls.length; i++) {
      toolCalls.push({ index: i, call: calls[i]! });
      this.emittedCalls.push(calls[i]!);
    }
    return { content: contentDelta, toolCalls };
  }
}
