// gpt-oss's Harmony format, as OpenAI's harmony guide documents it: the reply is a sequence of
// messages `<|channel|>CHANNEL[ to=RECIPIENT][ <|constrain|>json]<|message|>BODY<|end|>`, each later
// one opened by `<|start|>assistant`, the last ended by `<|return|>` or `<|call|>` (or by the end of
// the text, as those are stop tokens). The analysis channel is reasoning; a message to
// `functions.NAME` (recipient in the header, before or after the channel) is a tool call whose body
// is the JSON arguments; final and commentary messages to no one are content.
import { JsonMinifier } from '../json-minify';
import { CallSink } from './call-sink';
import { firstTag, partialTagLength, type ParsedReply, type ReplyEvent, type ReplyParser } from './types';

export const HARMONY = {
  start: '<|start|>',
  channel: '<|channel|>',
  message: '<|message|>',
  end: '<|end|>',
  call: '<|call|>',
  return: '<|return|>',
  constrain: '<|constrain|>',
} as const;
const BODY_ENDS = [HARMONY.end, HARMONY.call, HARMONY.return, HARMONY.start];
/** A header longer than this without `<|message|>` is not a header: the text is content. */
const MAX_HEADER = 512;

type Body =
  { kind: 'reasoning' } | { kind: 'content' } | { kind: 'call'; index: number; json: JsonMinifier; sent: number };

export class HarmonyReplyParser implements ReplyParser {
  private readonly sink: CallSink;
  private pending = '';
  private header = '';
  private body: Body | null = null;
  private reasoning = '';
  private events: ReplyEvent[] = [];
  private plain = false;

  constructor(
    idPrefix: string,
    private readonly parseTools = true,
  ) {
    this.sink = new CallSink(idPrefix);
  }

  push(delta: string): ReplyEvent[] {
    this.pending += delta;
    this.scan(false);
    return this.take();
  }

  finish(): ReplyEvent[] {
    this.scan(true);
    if (this.body) this.endBody();
    else if (this.header.trim() !== '') this.sink.text(this.header); // a reply that never opened a message
    this.sink.finish();
    return this.take();
  }

  result(): ParsedReply {
    return { ...this.sink.result(), reasoning: this.reasoning === '' ? null : this.reasoning };
  }

  private take(): ReplyEvent[] {
    const out: ReplyEvent[] = [...this.events, ...this.sink.take()];
    this.events = [];
    return out;
  }

  private scan(final: boolean): void {
    for (;;) {
      if (this.plain) {
        this.sink.text(this.pending);
        this.pending = '';
        return;
      }
      if (this.body === null) {
        const at = this.pending.indexOf(HARMONY.message);
        if (at < 0) {
          if (this.header.length + this.pending.length > MAX_HEADER) {
            this.plain = true;
            this.pending = this.header + this.pending;
            this.header = '';
            continue;
          }
          return;
        }
        this.header += this.pending.slice(0, at);
        this.pending = this.pending.slice(at + HARMONY.message.length);
        this.openBody(this.header);
        this.header = '';
        continue;
      }
      const hit = firstTag(this.pending, BODY_ENDS);
      if (hit === null) {
        const hold = final ? 0 : partialTagLength(this.pending, BODY_ENDS);
        this.bodyText(this.pending.slice(0, this.pending.length - hold));
        this.pending = this.pending.slice(this.pending.length - hold);
        return;
      }
      this.bodyText(this.pending.slice(0, hit.at));
      this.pending = this.pending.slice(hit.at + (hit.tag === HARMONY.start ? 0 : hit.tag.length));
      this.endBody();
    }
  }

  private openBody(header: string): void {
    const channel = /<\|channel\|>\s*([A-Za-z_]+)/.exec(header)?.[1] ?? 'final';
    const recipient = /\bto=([^\s<]+)/.exec(header)?.[1] ?? null;
    if (recipient?.startsWith('functions.') && this.parseTools) {
      const index = this.sink.start(recipient.slice('functions.'.length));
      this.body = { kind: 'call', index, json: new JsonMinifier(), sent: 0 };
    } else this.body = { kind: channel === 'analysis' ? 'reasoning' : 'content' };
  }

  private bodyText(text: string): void {
    const b = this.body!;
    if (text === '') return;
    if (b.kind === 'reasoning') {
      this.reasoning += text;
      this.events.push(...this.sink.take(), { kind: 'reasoning', text });
    } else if (b.kind === 'content') this.sink.text(text);
    else {
      for (const ch of text) if (b.json.feed(ch) === 'error') break;
      this.sink.args(b.index, b.json.out.slice(b.sent));
      b.sent = b.json.out.length;
    }
  }

  private endBody(): void {
    const b = this.body!;
    this.body = null;
    if (b.kind !== 'call') return;
    b.json.end();
    const ok = b.json.done && b.json.out.startsWith('{');
    this.sink.args(b.index, b.json.out === '' ? '{}' : b.json.out.slice(b.sent) + b.json.repair());
    if (!ok && b.json.out !== '') this.sink.malformed += 1;
    this.sink.end(b.index);
  }
}
