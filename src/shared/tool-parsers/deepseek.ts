// DeepSeek-V3 tool calls, as its chat template renders them (and the model writes them):
//   <｜tool▁calls▁begin｜>
//     <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{ARGS}\n```<｜tool▁call▁end｜>…
//   <｜tool▁calls▁end｜> (no line breaks between the markers)
// and the V3.1 form `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{ARGS}<｜tool▁call▁end｜>`. The arguments
// stream as the generated JSON without insignificant whitespace (json-minify.ts).
import { JsonMinifier } from '../json-minify';
import { BlockToolParser, type BlockFormat, type CallBody } from './block-parser';

export const DEEPSEEK_CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
export const DEEPSEEK_CALLS_END = '<｜tool▁calls▁end｜>';
export const DEEPSEEK_CALL_BEGIN = '<｜tool▁call▁begin｜>';
export const DEEPSEEK_CALL_END = '<｜tool▁call▁end｜>';
export const DEEPSEEK_SEP = '<｜tool▁sep｜>';
const FENCE = '```json';

class DeepSeekBody implements CallBody {
  name: string | null = null;
  private state: 'head' | 'name' | 'fence' | 'args' | 'tail' | 'broken' = 'head';
  private buf = '';
  private json: JsonMinifier | null = null;

  get ready(): boolean {
    return this.name !== null && this.json !== null && this.json.out !== '';
  }

  get args(): string {
    return this.json?.out ?? '';
  }

  feed(text: string): void {
    for (const ch of text) this.char(ch);
  }

  close(): { suffix: string; ok: boolean } {
    if (this.json === null) return { suffix: this.name === null ? '' : '{}', ok: false };
    this.json.end();
    const ok = this.json.done && this.state !== 'broken' && this.json.out.startsWith('{');
    return { suffix: this.json.repair(), ok };
  }

  private char(ch: string): void {
    switch (this.state) {
      case 'head':
        this.buf += ch;
        if (this.buf.endsWith(DEEPSEEK_SEP)) {
          const head = this.buf.slice(0, -DEEPSEEK_SEP.length).trim();
          this.buf = '';
          if (head === 'function' || head === '') this.state = 'name';
          else this.startArgs(head);
        }
        return;
      case 'name':
        if (ch !== '\n') return void (this.buf += ch);
        this.name = this.buf.trim() || null;
        this.buf = '';
        this.state = this.name === null ? 'broken' : 'fence';
        return;
      case 'fence':
        this.buf += ch;
        if (this.buf.trimStart().length < FENCE.length) return;
        if (!this.buf.trimStart().startsWith(FENCE)) return void (this.state = 'broken');
        if (ch === '\n') this.startArgs(this.name!);
        return;
      case 'args': {
        const r = this.json!.feed(ch);
        if (r === 'error' || (r === 'rejected' && !' \t\n\r`'.includes(ch))) this.state = 'broken';
        else if (this.json!.done) this.state = 'tail';
        return;
      }
      case 'tail':
      case 'broken':
        return;
    }
  }

  private startArgs(name: string): void {
    this.name = name;
    this.json = new JsonMinifier();
    this.state = 'args';
  }
}

export const DEEPSEEK_FORMAT: BlockFormat = {
  open: DEEPSEEK_CALL_BEGIN,
  close: DEEPSEEK_CALL_END,
  drop: [DEEPSEEK_CALLS_BEGIN, DEEPSEEK_CALLS_END],
  body: () => new DeepSeekBody(),
};

export const deepSeekToolParser = (idPrefix: string): BlockToolParser => new BlockToolParser(DEEPSEEK_FORMAT, idPrefix);
