// The JSON body of one Hermes `<tool_call>` block, scanned a character at a time as it is generated
// (tool-call-stream.ts feeds it): whether it is one object with a string `name` and an object (or
// null) `arguments`, the name as soon as it is known, and the arguments' minified JSON so far.
import { JsonMinifier } from './json-minify';

/** The JSON body of one block: `{"name": …, "arguments": {…}, …}`, scanned as it arrives. */
export class BlockBody {
  state: 'pre' | 'key' | 'colon' | 'value' | 'next' | 'post' | 'broken' = 'pre';
  name: string | null = null;
  args: JsonMinifier | null = null;
  argsNull = false;
  argsInvalid = false;
  private key: JsonMinifier | null = null;
  private keyText = '';
  private value: JsonMinifier | null = null;
  private valueKey = '';
  private first = true;

  feed(ch: string): void {
    if (this.state === 'broken') return;
    if (this.value) {
      const r = this.value.feed(ch);
      if (r === 'error') return this.break();
      if (r === 'consumed') {
        if (this.value.done) this.valueDone();
        return;
      }
      this.valueDone(); // rejected: the value ended before `ch`
    }
    if (this.key) {
      if (this.key.feed(ch) === 'error') return this.break();
      if (this.key.done) {
        this.keyText = JSON.parse(this.key.out) as string;
        this.key = null;
        this.state = 'colon';
      }
      return;
    }
    this.structural(ch);
  }

  /** True when the text so far is exactly one complete object (whitespace around it aside). */
  get complete(): boolean {
    return this.state === 'post';
  }

  private break(): void {
    this.state = 'broken';
    this.value = this.key = null;
  }

  private structural(ch: string): void {
    if (' \t\n\r'.includes(ch)) return;
    switch (this.state) {
      case 'pre':
        return ch === '{' ? void (this.state = 'key') : this.break();
      case 'key':
        if (ch === '}' && this.first) return void (this.state = 'post');
        if (ch !== '"') return this.break();
        this.key = new JsonMinifier();
        this.key.feed(ch);
        return;
      case 'colon':
        if (ch !== ':') return this.break();
        this.state = 'value';
        return;
      case 'value':
        this.value = new JsonMinifier();
        this.valueKey = this.keyText;
        if (this.valueKey === 'arguments') {
          if (this.args || this.argsNull) return this.break(); // a second `arguments`
          if (ch === '{') this.args = this.value;
          else if (ch !== 'n') this.argsInvalid = true;
        }
        if (this.value.feed(ch) === 'error') return this.break();
        if (this.value.done) this.valueDone();
        return;
      case 'next':
        if (ch === ',') {
          this.first = false;
          this.state = 'key';
          return;
        }
        return ch === '}' ? void (this.state = 'post') : this.break();
      case 'post':
        return this.break();
    }
  }

  private valueDone(): void {
    const v = this.value!;
    this.value = null;
    this.state = 'next';
    if (this.valueKey === 'name') {
      if (this.name !== null) return this.break(); // a second `name`
      const parsed: unknown = JSON.parse(v.out);
      this.name = typeof parsed === 'string' ? parsed : '';
    } else if (this.valueKey === 'arguments' && v.out === 'null') {
      this.argsNull = true;
    } else if (this.valueKey === 'arguments' && v !== this.args) {
      this.argsInvalid = true;
    }
  }
}
