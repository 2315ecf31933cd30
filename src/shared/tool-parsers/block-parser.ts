// Tool parsers for formats that wrap each call in tags (DeepSeek-V3, Qwen3-Coder XML): text outside
// blocks is content, a block runs from an open tag to the close tag (or the next open tag, or the
// end of the text), and its body is scanned as it arrives by the format's CallBody. A block whose
// body never yields a name stays in the content verbatim and counts as malformed.
import type { StreamEvent } from '../tool-call-stream';
import { CallSink } from './call-sink';
import { firstTag, partialTagLength, type ToolParser } from './types';

/** One call's body, scanned as it arrives. */
export interface CallBody {
  feed(text: string): void;
  /** The function name, once certain. */
  readonly name: string | null;
  /** The call may start: its name is known and its arguments have begun (or cannot follow). */
  readonly ready: boolean;
  /** The arguments' JSON text so far (a prefix of the final text). */
  readonly args: string;
  /** The block ended: the text that closes `args`, and whether the body was well-formed. */
  close(): { suffix: string; ok: boolean };
}

export interface BlockFormat {
  readonly open: string;
  readonly close: string;
  /** Tags dropped wherever they appear outside blocks (e.g. DeepSeek's calls-begin/-end). */
  readonly drop: readonly string[];
  body(): CallBody;
}

interface OpenBlock {
  raw: string;
  body: CallBody;
  call: number | null;
  sent: number;
}

export class BlockToolParser implements ToolParser {
  private pending = '';
  private block: OpenBlock | null = null;
  private readonly sink: CallSink;

  constructor(
    private readonly format: BlockFormat,
    idPrefix: string,
  ) {
    this.sink = new CallSink(idPrefix);
  }

  push(delta: string): StreamEvent[] {
    this.pending += delta;
    this.scan(false);
    return this.sink.take();
  }

  finish(): StreamEvent[] {
    this.scan(true);
    this.sink.finish();
    return this.sink.take();
  }

  result(): ReturnType<ToolParser['result']> {
    return this.sink.result();
  }

  private scan(final: boolean): void {
    const { open, close, drop } = this.format;
    for (;;) {
      if (!this.block) {
        const hit = firstTag(this.pending, [open, ...drop]);
        if (hit === null) {
          const hold = final ? 0 : partialTagLength(this.pending, [open, ...drop]);
          this.sink.text(this.pending.slice(0, this.pending.length - hold));
          this.pending = this.pending.slice(this.pending.length - hold);
          return;
        }
        this.sink.text(this.pending.slice(0, hit.at));
        this.pending = this.pending.slice(hit.at + hit.tag.length);
        if (hit.tag === open) this.block = { raw: open, body: this.format.body(), call: null, sent: 0 };
        continue;
      }
      const hit = firstTag(this.pending, [close, open]);
      if (hit !== null) {
        this.feedBody(this.pending.slice(0, hit.at));
        this.pending = this.pending.slice(hit.tag === close ? hit.at + close.length : hit.at);
        this.endBlock(hit.tag === close ? close : '');
        continue;
      }
      const hold = final ? 0 : partialTagLength(this.pending, [close, open]);
      this.feedBody(this.pending.slice(0, this.pending.length - hold));
      this.pending = this.pending.slice(this.pending.length - hold);
      if (final) this.endBlock('');
      return;
    }
  }

  private feedBody(text: string): void {
    const b = this.block!;
    if (text === '') return;
    b.raw += text;
    b.body.feed(text);
    if (b.call === null && b.body.ready && b.body.name) b.call = this.sink.start(b.body.name);
    this.sendArgs(b);
  }

  private sendArgs(b: OpenBlock): void {
    if (b.call === null) return;
    this.sink.args(b.call, b.body.args.slice(b.sent));
    b.sent = b.body.args.length;
  }

  private endBlock(closeTag: string): void {
    const b = this.block!;
    this.block = null;
    b.raw += closeTag;
    const { suffix, ok } = b.body.close();
    if (b.call === null && b.body.name) b.call = this.sink.start(b.body.name);
    if (b.call === null) {
      this.sink.malformed += 1;
      this.sink.text(b.raw);
      return;
    }
    this.sendArgs(b);
    this.sink.args(b.call, suffix);
    if (!ok) this.sink.malformed += 1;
    this.sink.end(b.call);
  }
}
