// Qwen3-Coder's XML tool calls, as its chat template renders them:
//   <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…</function>\n</tool_call>
// The arguments become a JSON object, streamed one parameter at a time (`{`, then `"KEY":VALUE` as
// each parameter closes, then `}`). A value is a string when the tool's schema says so (or the
// parameter is unknown and the text is not JSON), else the JSON it spells.
import type { Tool } from '../chat';
import { BlockToolParser, type BlockFormat, type CallBody } from './block-parser';

const FUNCTION = /^\s*<function=([^>\n]+)>/;
const PARAM_OPEN = '<parameter=';
const PARAM_CLOSE = '</parameter>';
const FUNCTION_CLOSE = '</function>';

/** The JSON-schema type of each parameter of each tool. */
function paramTypes(tools: readonly Tool[] | null): Map<string, Map<string, unknown>> {
  const out = new Map<string, Map<string, unknown>>();
  for (const t of tools ?? []) {
    const props = t.function.parameters?.['properties'];
    const types = new Map<string, unknown>();
    if (typeof props === 'object' && props !== null) {
      for (const [k, v] of Object.entries(props)) {
        types.set(k, typeof v === 'object' && v !== null && 'type' in v ? v.type : undefined);
      }
    }
    out.set(t.function.name, types);
  }
  return out;
}

function stripOneNewline(s: string): string {
  const a = s.startsWith('\n') ? s.slice(1) : s;
  return a.endsWith('\n') ? a.slice(0, -1) : a;
}

/** A parameter's text as a JSON value. */
export function xmlParamValue(raw: string, type: unknown): string {
  const text = stripOneNewline(raw);
  if (type === 'string') return JSON.stringify(text);
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return JSON.stringify(text);
  }
}

class XmlBody implements CallBody {
  name: string | null = null;
  args = '';
  private buf = '';
  private params = 0;
  private done = false;
  private broken = false;

  constructor(private readonly types: Map<string, Map<string, unknown>>) {}

  get ready(): boolean {
    return this.name !== null;
  }

  feed(text: string): void {
    this.buf += text;
    for (;;) {
      if (this.name === null) {
        const m = FUNCTION.exec(this.buf);
        if (m === null) {
          if (this.buf.trim() !== '' && !'<function='.startsWith(this.buf.trim().slice(0, 10))) this.broken = true;
          return;
        }
        this.name = m[1]!.trim();
        this.args = '{';
        this.buf = this.buf.slice(m[0].length);
        continue;
      }
      if (this.done || this.broken) return;
      if (!this.param()) return;
    }
  }

  close(): { suffix: string; ok: boolean } {
    if (this.name === null) return { suffix: '', ok: false };
    if (!this.done && !this.broken) this.param(true);
    return { suffix: '}', ok: this.done && !this.broken };
  }

  /** Takes one complete parameter (or the function's end) off the buffer; false when none yet. */
  private param(final = false): boolean {
    const rest = this.buf.trimStart();
    if (rest.startsWith(FUNCTION_CLOSE)) {
      this.done = true;
      this.buf = '';
      return false;
    }
    if (!rest.startsWith(PARAM_OPEN)) {
      if (rest !== '' && !PARAM_OPEN.startsWith(rest) && !FUNCTION_CLOSE.startsWith(rest)) this.broken = true;
      return false;
    }
    const keyEnd = rest.indexOf('>');
    if (keyEnd < 0) return false;
    const key = rest.slice(PARAM_OPEN.length, keyEnd).trim();
    const body = rest.slice(keyEnd + 1);
    let end = body.indexOf(PARAM_CLOSE);
    let next = end < 0 ? -1 : end + PARAM_CLOSE.length;
    if (end < 0) {
      const cut = [body.indexOf(PARAM_OPEN), body.indexOf(FUNCTION_CLOSE)].filter((i) => i >= 0);
      if (cut.length > 0) end = next = Math.min(...cut);
      else if (final) end = next = body.length;
      else return false;
    }
    const value = xmlParamValue(body.slice(0, end), this.types.get(this.name!)?.get(key));
    this.args += `${this.params > 0 ? ',' : ''}${JSON.stringify(key)}:${value}`;
    this.params += 1;
    this.buf = body.slice(next);
    return true;
  }
}

export function qwen3CoderFormat(tools: readonly Tool[] | null): BlockFormat {
  const types = paramTypes(tools);
  return { open: '<tool_call>', close: '</tool_call>', drop: [], body: () => new XmlBody(types) };
}

export const qwen3CoderToolParser = (idPrefix: string, tools: readonly Tool[] | null): BlockToolParser =>
  new BlockToolParser(qwen3CoderFormat(tools), idPrefix);
