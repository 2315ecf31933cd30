// `<think>…</think>` reasoning (Qwen3, DeepSeek-R1 style), split off before the tool parser sees
// the text. As Qwen3's chat template reads a reply back: a reply that begins with `<think>` reasons
// until `</think>` (the newlines just inside the tags are not part of the reasoning), and the
// content after it loses its leading newlines. With `startsInside` (templates whose generation
// prompt already opens `<think>`), the reply reasons from its first character. A reply with no
// `<think>` is all content; an unclosed one is all reasoning.
import { partialTagLength, type ParsedReply, type ReplyEvent, type ReplyParser, type ToolParser } from './types';

export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

export class ThinkReplyParser implements ReplyParser {
  private state: 'start' | 'open' | 'inside' | 'after' = 'start';
  private pending = '';
  private reasoning = '';
  /** Newlines at the end of the reasoning so far, sent once more reasoning follows. */
  private heldNl = '';
  /** `</think>` just closed: the content's leading newlines are dropped. */
  private afterThink = false;

  constructor(
    private readonly tools: ToolParser,
    startsInside = false,
  ) {
    if (startsInside) this.state = 'open';
  }

  push(delta: string): ReplyEvent[] {
    this.pending += delta;
    return this.scan(false);
  }

  finish(): ReplyEvent[] {
    const events = this.scan(true);
    if (this.state === 'start') events.push(...this.tools.push(this.pending));
    this.pending = '';
    return [...events, ...this.tools.finish()];
  }

  result(): ParsedReply {
    return { ...this.tools.result(), reasoning: this.reasoning === '' ? null : this.reasoning };
  }

  private scan(final: boolean): ReplyEvent[] {
    const events: ReplyEvent[] = [];
    for (;;) {
      if (this.state === 'start') {
        const lead = this.pending.trimStart();
        if (lead.startsWith(THINK_OPEN)) {
          this.pending = lead.slice(THINK_OPEN.length);
          this.state = 'open';
          continue;
        }
        if (!final && THINK_OPEN.startsWith(lead)) return events; // undecided yet
        this.state = 'after';
        continue;
      }
      if (this.state === 'open') {
        this.pending = this.pending.replace(/^\n+/, '');
        if (this.pending === '' && !final) return events;
        this.state = 'inside';
        continue;
      }
      if (this.state === 'inside') {
        const close = this.pending.indexOf(THINK_CLOSE);
        const cut =
          close >= 0 ? close : this.pending.length - (final ? 0 : partialTagLength(this.pending, [THINK_CLOSE]));
        this.think(this.pending.slice(0, cut), events);
        if (close < 0) {
          this.pending = this.pending.slice(cut);
          return events;
        }
        this.pending = this.pending.slice(close + THINK_CLOSE.length);
        this.heldNl = '';
        this.state = 'after';
        this.afterThink = true;
        continue;
      }
      if (this.afterThink) {
        this.pending = this.pending.replace(/^\n+/, '');
        if (this.pending === '' && !final) return events;
        this.afterThink = false;
      }
      events.push(...this.tools.push(this.pending));
      this.pending = '';
      return events;
    }
  }

  private think(text: string, events: ReplyEvent[]): void {
    if (text === '') return;
    const body = text.replace(/\n+$/, '');
    const out = body === '' ? '' : this.heldNl + body;
    this.heldNl = body === '' ? this.heldNl + text : text.slice(body.length);
    if (out === '') return;
    this.reasoning += out;
    events.push({ kind: 'reasoning', text: out });
  }
}
