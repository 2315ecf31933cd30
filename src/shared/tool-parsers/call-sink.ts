// The event side every tool parser shares: content text with the Hermes parser's whitespace rules
// (whitespace next to a call is dropped, text runs around calls are joined with "\n"), calls
// started once their name is known, their arguments appended as they grow, and ended in order.
import type { ToolCall } from '../chat';
import type { StreamEvent } from '../tool-call-stream';

const WS_ONLY = /^[ \t\n\r]*$/;

/** The id of the i-th call parsed with a given prefix. */
export const toolCallId = (idPrefix: string, index: number): string => `call_${idPrefix}_${index}`;

export class CallSink {
  readonly calls: ToolCall[] = [];
  malformed = 0;
  private content = '';
  private heldWs = '';
  private afterCall = false;
  private events: StreamEvent[] = [];

  constructor(private readonly idPrefix: string) {}

  /** Text outside calls. */
  text(s: string): void {
    if (s === '') return;
    let rest = s;
    if (this.afterCall) {
      const trimmed = rest.replace(/^[ \t\n\r]+/, '');
      if (trimmed === '') return;
      rest = trimmed;
      this.afterCall = false;
      if (this.content !== '') this.heldWs = '\n';
    }
    if (WS_ONLY.test(rest)) {
      this.heldWs += rest;
      return;
    }
    const body = rest.replace(/[ \t\n\r]+$/, '');
    this.emitContent(this.heldWs + body);
    this.heldWs = rest.slice(body.length);
  }

  /** Text as it is, with no whitespace rule (a reply parsed without tools). */
  verbatim(s: string): void {
    this.emitContent(s);
  }

  /** Starts a call; returns its index. */
  start(name: string): number {
    this.heldWs = '';
    const index = this.calls.length;
    const id = toolCallId(this.idPrefix, index);
    this.calls.push({ id, type: 'function', function: { name, arguments: '' } });
    this.events.push({ kind: 'tool_call_start', index, id, name });
    return index;
  }

  args(index: number, text: string): void {
    if (text === '') return;
    this.calls[index]!.function.arguments += text;
    this.events.push({ kind: 'tool_call_args', index, text });
  }

  end(index: number): void {
    const call = this.calls[index]!;
    this.events.push({ kind: 'tool_call_end', index, call: { ...call, function: { ...call.function } } });
    this.afterCall = true;
  }

  /** The text ended: held whitespace of a reply without calls is content after all. */
  finish(): void {
    if (this.calls.length === 0 && this.heldWs) this.emitContent(this.heldWs);
    this.heldWs = '';
  }

  take(): StreamEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  result(): { content: string | null; toolCalls: ToolCall[]; malformed: number } {
    return {
      content: this.content === '' ? null : this.content,
      toolCalls: [...this.calls],
      malformed: this.malformed,
    };
  }

  private emitContent(text: string): void {
    if (text === '') return;
    this.content += text;
    const last = this.events.at(-1);
    if (last?.kind === 'content') last.text += text;
    else this.events.push({ kind: 'content', text });
  }
}
