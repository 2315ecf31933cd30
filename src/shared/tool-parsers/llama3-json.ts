// Llama 3.x JSON tool calls, as Meta's model card documents them: a reply that is (after optional
// whitespace and `<|python_tag|>`) one JSON object `{"name": …, "parameters": {…}}` — several
// separated by `;` — is a tool call; any other reply is content. `arguments` is accepted for
// `parameters` (vLLM's llama3_json parser does the same). Streams like the Hermes parser: a call
// starts once its name is known and its arguments object has begun.
import type { StreamEvent } from '../tool-call-stream';
import { CallSink } from './call-sink';
import { JsonCallScanner } from './json-call';
import type { ToolParser } from './types';

export const PYTHON_TAG = '<|python_tag|>';
const ARG_KEYS = ['parameters', 'arguments'] as const;

export class Llama3JsonToolParser implements ToolParser {
  private readonly sink: CallSink;
  private mode: 'undecided' | 'json' | 'between' | 'text' = 'undecided';
  private lead = '';
  private scanner: JsonCallScanner | null = null;
  private raw = '';
  private call: number | null = null;
  private sent = 0;

  constructor(idPrefix: string) {
    this.sink = new CallSink(idPrefix);
  }

  push(delta: string): StreamEvent[] {
    for (const ch of delta) this.char(ch);
    return this.sink.take();
  }

  finish(): StreamEvent[] {
    if (this.mode === 'undecided') this.sink.text(this.lead);
    if (this.mode === 'json') this.endObject(false);
    this.sink.finish();
    return this.sink.take();
  }

  result(): ReturnType<ToolParser['result']> {
    return this.sink.result();
  }

  private char(ch: string): void {
    switch (this.mode) {
      case 'text':
        return this.sink.text(ch);
      case 'undecided': {
        const lead = (this.lead + ch).trimStart();
        if (ch === '{' && (lead === '{' || lead === `${PYTHON_TAG}{`)) {
          this.lead = '';
          return this.begin();
        }
        this.lead += ch;
        if (
          lead !== '' &&
          !PYTHON_TAG.startsWith(lead) &&
          !(lead.startsWith(PYTHON_TAG) && lead.trim() === PYTHON_TAG)
        ) {
          this.mode = 'text';
          this.sink.text(this.lead);
          this.lead = '';
        }
        return;
      }
      case 'between':
        if (' \t\n\r;'.includes(ch)) return;
        if (ch === '{') return this.begin();
        this.mode = 'text';
        return this.sink.text(ch);
      case 'json':
        return this.jsonChar(ch);
    }
  }

  private begin(): void {
    this.mode = 'json';
    this.scanner = new JsonCallScanner(ARG_KEYS);
    this.raw = '';
    this.call = null;
    this.sent = 0;
    this.jsonChar('{');
  }

  private jsonChar(ch: string): void {
    const s = this.scanner!;
    const taken = s.feed(ch);
    if (taken) this.raw += ch;
    if (s.broken && !s.json.done) {
      this.endObject(false);
      this.mode = 'text';
      if (!taken) this.sink.text(ch);
      return;
    }
    if (this.call === null && s.name && s.argsStarted && !s.argsInvalid) this.call = this.sink.start(s.name);
    this.sendArgs();
    if (s.json.done) {
      this.endObject(true);
      this.mode = 'between';
      if (!taken) this.char(ch);
    }
  }

  private sendArgs(): void {
    if (this.call === null) return;
    const args = this.scanner!.args;
    this.sink.args(this.call, args.slice(this.sent));
    this.sent = args.length;
  }

  private endObject(complete: boolean): void {
    const s = this.scanner!;
    if (this.call === null && complete && s.name && !s.argsInvalid && !s.argsStarted) {
      this.call = this.sink.start(s.name);
      this.sink.args(this.call, '{}');
    }
    if (this.call === null) {
      this.sink.malformed += 1;
      this.sink.text(this.raw);
      return;
    }
    this.sendArgs();
    if (s.argsStarted && !s.argsComplete) this.sink.args(this.call, s.json.repair().slice(0, -1)); // not the outer `}`
    if (!complete) this.sink.malformed += 1;
    this.sink.end(this.call);
    this.call = null;
  }
}
