// Streaming parser of model text with Hermes `<tool_call>` blocks: fed text deltas as they are
// generated, it emits StreamEvents the way OpenAI's and vLLM's (Hermes parser) streaming do —
// content text as it comes, a tool call's id and name as soon as the name is known and its
// arguments follow, then the arguments incrementally — and at the end the parsed message.
// `parseToolCalls` (tool-calls.ts) is this parser run over a whole text, so a streamed reply and
// a non-streamed one are the same message by construction. Pure: text in, events out.
//
// Guarantees (property-tested in tool-call-stream.test.ts): concatenated content deltas equal the
// final content; concatenated argument deltas of a call equal its final `function.arguments`; every
// started call ends, in order; a block that is not a call is never started — its text is held back
// until that is certain, then sent as content.
//
// Rules:
// - A block runs from `<tool_call>` to `</tool_call>`, to the next `<tool_call>` (cut short) or to
//   the end of the text. Tags count wherever they appear (even inside a JSON string).
// - Its body must be one JSON object with a non-empty string `name` and an object `arguments`
//   (absent or null: `{}`). The call starts once the name is known and its arguments object has
//   begun; the arguments are the generated JSON without insignificant whitespace (strings and
//   numbers as written). A started call whose JSON then breaks or stops (syntax error, text or
//   block ended early) is closed with the arguments parsed so far and counted in `malformed`.
// - A block that never started a call stays in the content verbatim and counts in `malformed`.
// - Content: without tool calls, the text verbatim. With tool calls, whitespace next to a call is
//   dropped and the text runs around calls are joined with "\n" (leading whitespace of the reply
//   itself is kept: it is sent before any call can be known).
import type { ToolCall } from './chat';
import { BlockBody } from './tool-call-body';
import { CallSink } from './tool-parsers/call-sink';

export { toolCallId } from './tool-parsers/call-sink';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

export type StreamEvent =
  | { kind: 'content'; text: string }
  | { kind: 'tool_call_start'; index: number; id: string; name: string }
  | { kind: 'tool_call_args'; index: number; text: string }
  | { kind: 'tool_call_end'; index: number; call: ToolCall }
  /** Reasoning text (the family's reasoning parser, src/shared/tool-parsers/); Hermes sends none. */
  | { kind: 'reasoning'; text: string };

export interface ParsedAssistantText {
  /** Text outside tool calls (blocks that are not calls stay in it verbatim); null when empty. */
  content: string | null;
  toolCalls: ToolCall[];
  /** Blocks that were not well-formed calls (left as text, or closed early). */
  malformed: number;
}

/** Length of the longest suffix of `text` that is a proper prefix of one of `tags`. */
function partialTag(text: string, tags: readonly string[]): number {
  for (let k = Math.min(text.length, Math.max(...tags.map((t) => t.length)) - 1); k > 0; k--) {
    const tail = text.slice(text.length - k);
    if (tags.some((t) => t.startsWith(tail))) return k;
  }
  return 0;
}

interface OpenBlock {
  raw: string;
  body: BlockBody;
  /** Index of the started call, or null. */
  call: number | null;
  sentArgs: number;
}

export class HermesStreamParser {
  private pending = '';
  private block: OpenBlock | null = null;
  /** Content with the whitespace rules, the calls, their events and the malformed count. */
  private readonly sink: CallSink;
  private finished = false;

  /**
   * @param idPrefix the tool-call id prefix of this reply (`call_<idPrefix>_<i>`)
   * @param parseTools false when the reply is plain text (no tools, or `tool_choice: "none"`)
   */
  constructor(
    idPrefix: string,
    private readonly parseTools = true,
  ) {
    this.sink = new CallSink(idPrefix);
  }

  /** Feeds newly generated text; returns the events it makes sendable. */
  push(delta: string): StreamEvent[] {
    if (this.finished) throw new Error('the stream has finished');
    if (!this.parseTools) {
      this.sink.verbatim(delta);
      return this.sink.take();
    }
    this.pending += delta;
    this.scan(false);
    return this.sink.take();
  }

  /** The text has ended: returns the last events. */
  finish(): StreamEvent[] {
    if (this.finished) return [];
    if (this.parseTools) this.scan(true);
    this.sink.finish();
    this.finished = true;
    return this.sink.take();
  }

  /** The parsed reply (complete once `finish` was called). */
  result(): ParsedAssistantText {
    return this.sink.result();
  }

  private scan(final: boolean): void {
    for (;;) {
      if (!this.block) {
        const open = this.pending.indexOf(TOOL_CALL_OPEN);
        if (open < 0) {
          const hold = final ? 0 : partialTag(this.pending, [TOOL_CALL_OPEN]);
          this.sink.text(this.pending.slice(0, this.pending.length - hold));
          this.pending = this.pending.slice(this.pending.length - hold);
          return;
        }
        this.sink.text(this.pending.slice(0, open));
        this.pending = this.pending.slice(open + TOOL_CALL_OPEN.length);
        this.block = { raw: TOOL_CALL_OPEN, body: new BlockBody(), call: null, sentArgs: 0 };
        continue;
      }
      const close = this.pending.indexOf(TOOL_CALL_CLOSE);
      const reopen = this.pending.indexOf(TOOL_CALL_OPEN);
      if (close >= 0 && (reopen < 0 || close < reopen)) {
        this.body(this.pending.slice(0, close));
        this.pending = this.pending.slice(close + TOOL_CALL_CLOSE.length);
        this.endBlock(TOOL_CALL_CLOSE);
        continue;
      }
      if (reopen >= 0) {
        this.body(this.pending.slice(0, reopen));
        this.pending = this.pending.slice(reopen);
        this.endBlock('');
        continue;
      }
      const hold = final ? 0 : partialTag(this.pending, [TOOL_CALL_OPEN, TOOL_CALL_CLOSE]);
      this.body(this.pending.slice(0, this.pending.length - hold));
      this.pending = this.pending.slice(this.pending.length - hold);
      if (final) this.endBlock('');
      return;
    }
  }

  private body(text: string): void {
    const b = this.block!;
    b.raw += text;
    for (const ch of text) {
      b.body.feed(ch);
      if (b.call === null) this.maybeStart(); // decided at the character, however the text was cut
    }
    this.sendArgs(b);
  }

  private maybeStart(): void {
    const b = this.block!;
    const body = b.body;
    if (b.call !== null || !body.name || body.argsInvalid || !body.args || body.state === 'broken') return;
    b.call = this.sink.start(body.name);
  }

  private sendArgs(b: OpenBlock, extra = ''): void {
    if (b.call === null || !b.body.args) return;
    const text = b.body.args.out.slice(b.sentArgs) + extra;
    b.sentArgs = b.body.args.out.length;
    this.sink.args(b.call, text);
  }

  private endBlock(closeTag: string): void {
    const b = this.block!;
    this.block = null;
    b.raw += closeTag;
    const body = b.body;
    if (b.call === null && body.complete && body.name && !body.argsInvalid && !body.args) {
      // `arguments` absent or null: a call with no arguments, known only now
      const index = this.sink.start(body.name);
      this.sink.args(index, '{}');
      this.sink.end(index);
      return;
    }
    if (b.call === null) {
      this.sink.malformed += 1;
      this.sink.text(b.raw);
      return;
    }
    const args = body.args!;
    if (!body.complete) this.sink.malformed += 1;
    this.sendArgs(b, args.done ? '' : args.repair());
    this.sink.end(b.call);
  }
}

/** The events of a whole text at once, and the parsed reply. */
export function parseStream(
  text: string,
  idPrefix: string,
  parseTools = true,
): { events: StreamEvent[]; parsed: ParsedAssistantText } {
  const p = new HermesStreamParser(idPrefix, parseTools);
  const events = [...p.push(text), ...p.finish()];
  return { events, parsed: p.result() };
}

/** Transitional (until the routes consume StreamEvents): events folded into content + finished calls. */
export interface StreamDelta {
  content: string;
  /** Tool calls completed since the previous delta, with their index in the message. */
  toolCalls: { index: number; call: ToolCall }[];
}

/** Transitional adapter over HermesStreamParser taking "the text so far" (see StreamDelta). */
export class ToolCallStream {
  private readonly parser: HermesStreamParser;
  private fed = '';

  constructor(idPrefix: string, parseTools: boolean) {
    this.parser = new HermesStreamParser(idPrefix, parseTools);
  }

  push(text: string): StreamDelta {
    if (!text.startsWith(this.fed)) return { content: '', toolCalls: [] };
    const delta = text.slice(this.fed.length);
    this.fed = text;
    return fold(this.parser.push(delta));
  }

  finish(text: string): { delta: StreamDelta; final: ParsedAssistantText; consistent: boolean } {
    const consistent = text.startsWith(this.fed);
    const tail = consistent ? this.parser.push(text.slice(this.fed.length)) : [];
    const delta = fold([...tail, ...this.parser.finish()]);
    return { delta, final: this.parser.result(), consistent };
  }
}

function fold(events: StreamEvent[]): StreamDelta {
  const out: StreamDelta = { content: '', toolCalls: [] };
  for (const e of events) {
    if (e.kind === 'content') out.content += e.text;
    else if (e.kind === 'tool_call_end') out.toolCalls.push({ index: e.index, call: e.call });
  }
  return out;
}
