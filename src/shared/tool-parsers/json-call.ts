// One JSON tool-call object (`{"name": …, "parameters": {…}}` and the like), scanned as it arrives:
// the object is minified by JsonMinifier, and a walk over its minified text finds the top-level
// `name` (once its string is complete) and the arguments object (its text so far, a prefix of the
// final). Pure and incremental: each character is minified and walked once.
import { JsonMinifier } from '../json-minify';

export class JsonCallScanner {
  readonly json = new JsonMinifier();
  name: string | null = null;
  /** The arguments value was not an object (or appeared twice). */
  argsInvalid = false;
  private walked = 0;
  private depth = 0;
  private inString = false;
  private escape = false;
  private key: string | null = null;
  private keyStart = -1;
  private valueStart = -1;
  private argsStart = -1;
  private argsEnd = -1;
  broken = false;

  constructor(private readonly argKeys: readonly string[]) {}

  /** Feeds one character; false when the object is complete or broken and `ch` was not taken. */
  feed(ch: string): boolean {
    if (this.broken) return false;
    const r = this.json.feed(ch);
    if (r === 'error') {
      this.broken = true;
      return false;
    }
    this.walk();
    return r === 'consumed';
  }

  get args(): string {
    if (this.argsStart < 0) return '';
    return this.json.out.slice(this.argsStart, this.argsEnd < 0 ? undefined : this.argsEnd);
  }

  get argsStarted(): boolean {
    return this.argsStart >= 0;
  }

  get argsComplete(): boolean {
    return this.argsEnd >= 0;
  }

  private walk(): void {
    const out = this.json.out;
    for (; this.walked < out.length; this.walked++) {
      const ch = out[this.walked]!;
      const i = this.walked;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (ch === '\\') this.escape = true;
        else if (ch === '"') {
          this.inString = false;
          if (this.depth === 1 && this.keyStart >= 0 && this.key === null) {
            this.key = JSON.parse(out.slice(this.keyStart, i + 1)) as string;
            this.keyStart = -1;
          } else if (this.depth === 1 && this.valueStart >= 0) this.valueEnd(i + 1);
        }
        continue;
      }
      if (ch === '"') {
        this.inString = true;
        if (this.depth === 1 && this.key === null) this.keyStart = i;
        else if (this.depth === 1 && this.valueStart < 0) this.beginValue(i);
        continue;
      }
      if (ch === ':' && this.depth === 1) continue;
      if (ch === ',' || ch === '}' || ch === ']') {
        if (this.depth === 1 && this.valueStart >= 0) this.valueEnd(i);
        if (ch !== ',') this.depth -= 1;
        if (ch === ',' && this.depth === 1) this.key = null;
        continue;
      }
      if (ch === '{' || ch === '[') {
        if (this.depth === 1 && this.valueStart < 0) this.beginValue(i);
        this.depth += 1;
        continue;
      }
      if (this.depth === 1 && this.valueStart < 0) this.beginValue(i); // number or literal
    }
  }

  private valueEnd(end: number): void {
    const start = this.valueStart;
    this.valueStart = -1;
    const key = this.key;
    const text = this.json.out.slice(start, end);
    if (key === 'name') {
      const v: unknown = JSON.parse(text);
      if (this.name !== null || typeof v !== 'string') this.broken = true;
      else this.name = v;
    } else if (key !== null && this.argKeys.includes(key)) {
      if (this.argsStart === start) this.argsEnd = end;
    }
  }

  private beginValue(i: number): void {
    this.valueStart = i;
    if (this.key === null || !this.argKeys.includes(this.key)) return;
    if (this.argsStart >= 0 || this.json.out[i] !== '{') this.argsInvalid = true;
    else this.argsStart = i;
  }
}
