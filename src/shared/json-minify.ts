// An incremental, strict JSON value scanner (RFC 8259) that writes the value without insignificant
// whitespace as soon as each piece is certain: structure characters at once, string characters as
// they come (an escape once complete), numbers and literals once they end, a comma only when the
// next member begins. So `out` is always a prefix of the minified value, and `repair()` returns the
// suffix that closes that prefix into valid JSON (after a syntax error or when the input stops).
// Pure: characters in, text out. Used to stream tool-call arguments token by token.

type Frame = { kind: 'obj' | 'arr'; state: 'start' | 'key' | 'colon' | 'value' | 'next' };
type Scalar =
  | { type: 'string'; key: boolean; escape: '' | '\\' | 'u'; hex: string }
  | { type: 'number'; text: string }
  | { type: 'literal'; target: 'true' | 'false' | 'null'; text: string };

/** What `feed` did with a character. */
export type FeedResult = 'consumed' | 'rejected' | 'error';

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const NUMBER_CHAR = /[0-9+\-.eE]/;
const WHITESPACE = ' \t\n\r';
export const MAX_DEPTH = 512;

export class JsonMinifier {
  /** The minified text written so far. */
  out = '';
  /** The value is complete (further characters are rejected). */
  done = false;
  /** A syntax error was met; the scanner takes nothing more. */
  failed = false;
  /** The first non-whitespace character of the value, once seen. */
  first: string | null = null;
  private readonly stack: Frame[] = [];
  private scalar: Scalar | null = null;
  private comma = false;

  /** Feeds one character; `rejected` means the value ended before it (the caller handles it). */
  feed(ch: string): FeedResult {
    if (this.failed) return 'error';
    if (this.done) return 'rejected';
    if (this.scalar) {
      const r = this.scalarChar(ch);
      if (r !== 'rejected' || this.done) return r;
      // a number ended at `ch`: it belongs to the container
    }
    return this.structural(ch);
  }

  /** The input stopped: completes a trailing number; true when the value is complete. */
  end(): boolean {
    const s = this.scalar;
    if (s?.type === 'number' && this.stack.length === 0 && NUMBER.test(s.text)) {
      this.out += s.text;
      this.scalar = null;
      this.done = true;
    }
    return this.done;
  }

  /** The text that closes `out` into valid JSON (empty when the value is complete). */
  repair(): string {
    if (this.done) return '';
    let suffix = '';
    let state: Frame['state'] | null = this.stack.at(-1)?.state ?? null;
    const s = this.scalar;
    if (s?.type === 'string') {
      suffix += '"';
      if (s.key) suffix += ':null';
      state = 'next';
    } else if (s) {
      suffix += s.type === 'number' && NUMBER.test(s.text) ? s.text : 'null';
      state = 'next';
    } else if (this.out === '') {
      return 'null';
    }
    if (state === 'colon') suffix += ':null';
    else if (state === 'value' && this.stack.at(-1)?.kind === 'obj') suffix += 'null';
    for (let i = this.stack.length - 1; i >= 0; i--) suffix += this.stack[i]!.kind === 'obj' ? '}' : ']';
    return suffix;
  }

  private fail(): FeedResult {
    this.failed = true;
    return 'error';
  }

  private emitComma(): string {
    const c = this.comma ? ',' : '';
    this.comma = false;
    return c;
  }

  private completeValue(): void {
    const top = this.stack.at(-1);
    if (!top) this.done = true;
    else top.state = 'next';
  }

  private scalarChar(ch: string): FeedResult {
    const s = this.scalar!;
    if (s.type === 'string') return this.stringChar(s, ch);
    if (s.type === 'number') {
      if (NUMBER_CHAR.test(ch)) {
        s.text += ch;
        return 'consumed';
      }
      if (!NUMBER.test(s.text)) return this.fail();
      this.out += s.text;
      this.scalar = null;
      this.completeValue();
      return 'rejected';
    }
    if (s.target[s.text.length] !== ch) return this.fail();
    s.text += ch;
    if (s.text === s.target) {
      this.out += s.target;
      this.scalar = null;
      this.completeValue();
    }
    return 'consumed';
  }

  private stringChar(s: Extract<Scalar, { type: 'string' }>, ch: string): FeedResult {
    if (s.escape === '\\') {
      if (ch === 'u') {
        s.escape = 'u';
        s.hex = '';
        return 'consumed';
      }
      if (!'"\\/bfnrt'.includes(ch)) return this.fail();
      this.out += `\\${ch}`;
      s.escape = '';
      return 'consumed';
    }
    if (s.escape === 'u') {
      if (!/[0-9a-fA-F]/.test(ch)) return this.fail();
      s.hex += ch;
      if (s.hex.length === 4) {
        this.out += `\\u${s.hex}`;
        s.escape = '';
      }
      return 'consumed';
    }
    if (ch === '\\') {
      s.escape = '\\';
      return 'consumed';
    }
    if (ch === '"') {
      this.out += '"';
      this.scalar = null;
      const top = this.stack.at(-1);
      if (s.key && top) top.state = 'colon';
      else this.completeValue();
      return 'consumed';
    }
    if (ch.charCodeAt(0) < 0x20) return this.fail();
    this.out += ch;
    return 'consumed';
  }

  private beginValue(ch: string): FeedResult {
    if (this.first === null) this.first = ch;
    if (ch === '{' || ch === '[') {
      if (this.stack.length >= MAX_DEPTH) return this.fail();
      this.out += this.emitComma() + ch;
      this.stack.push({ kind: ch === '{' ? 'obj' : 'arr', state: 'start' });
      return 'consumed';
    }
    if (ch === '"') {
      this.out += `${this.emitComma()}"`;
      this.scalar = { type: 'string', key: false, escape: '', hex: '' };
      return 'consumed';
    }
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      this.out += this.emitComma();
      this.scalar = { type: 'number', text: ch };
      return 'consumed';
    }
    const target = ch === 't' ? 'true' : ch === 'f' ? 'false' : ch === 'n' ? 'null' : null;
    if (!target) return this.fail();
    this.out += this.emitComma();
    this.scalar = { type: 'literal', target, text: ch };
    return 'consumed';
  }

  private structural(ch: string): FeedResult {
    if (WHITESPACE.includes(ch)) return 'consumed';
    const top = this.stack.at(-1);
    if (!top) return this.beginValue(ch);
    const closer = top.kind === 'obj' ? '}' : ']';
    switch (top.state) {
      case 'start':
        if (ch === closer) return this.close(closer);
        if (top.kind === 'arr') return this.beginValue(ch);
        return this.beginKey(ch);
      case 'key':
        return this.beginKey(ch);
      case 'colon':
        if (ch !== ':') return this.fail();
        this.out += ':';
        top.state = 'value';
        return 'consumed';
      case 'value':
        return this.beginValue(ch);
      case 'next':
        if (ch === closer) return this.close(closer);
        if (ch !== ',') return this.fail();
        this.comma = true;
        top.state = top.kind === 'obj' ? 'key' : 'value';
        return 'consumed';
    }
  }

  private beginKey(ch: string): FeedResult {
    if (ch !== '"') return this.fail();
    this.out += `${this.emitComma()}"`;
    this.scalar = { type: 'string', key: true, escape: '', hex: '' };
    return 'consumed';
  }

  private close(closer: string): FeedResult {
    this.out += closer;
    this.stack.pop();
    this.completeValue();
    return 'consumed';
  }
}

/** The minified form of a complete JSON text, or null when it is not valid JSON. */
export function minifyJson(text: string): string | null {
  const m = new JsonMinifier();
  for (const ch of text) {
    const r = m.feed(ch);
    if (r === 'error') return null;
    if (r === 'rejected' && !WHITESPACE.includes(ch)) return null;
  }
  return m.end() ? m.out : null;
}
