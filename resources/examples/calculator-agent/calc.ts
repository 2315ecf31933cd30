// Safe arithmetic evaluator for the calculator tool: + - * / unary signs, parentheses, integer and
// decimal literals. A recursive-descent parser (no eval) that reports errors as short strings.

export type CalcResult = { ok: true; value: number } | { ok: false; error: string };

const MAX_LENGTH = 200;
const MAX_DEPTH = 32;

type Token = { kind: 'num'; value: number; text: string } | { kind: 'op'; text: string };

class CalcError extends Error {}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      i++;
    } else if ('+-*/()'.includes(ch)) {
      tokens.push({ kind: 'op', text: ch });
      i++;
    } else if ((ch >= '0' && ch <= '9') || ch === '.') {
      let j = i;
      while (j < src.length && ((src[j]! >= '0' && src[j]! <= '9') || src[j] === '.')) j++;
      const text = src.slice(i, j);
      if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) throw new CalcError(`invalid number '${text}'`);
      tokens.push({ kind: 'num', value: Number(text), text });
      i = j;
    } else {
      throw new CalcError(`unexpected character '${ch}'`);
    }
  }
  return tokens;
}

/** Grammar: expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
 *  unary := ('+'|'-') unary | number | '(' expr ')'. */
class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parseAll(): number {
    if (this.tokens.length === 0) throw new CalcError('empty expression');
    const value = this.expr(0);
    const rest = this.tokens[this.pos];
    if (rest !== undefined) throw new CalcError(`unexpected '${rest.text}'`);
    return value;
  }

  private peekOp(): string | undefined {
    const t = this.tokens[this.pos];
    return t?.kind === 'op' ? t.text : undefined;
  }

  private expr(depth: number): number {
    let value = this.term(depth);
    for (let op = this.peekOp(); op === '+' || op === '-'; op = this.peekOp()) {
      this.pos++;
      const rhs = this.term(depth);
      value = op === '+' ? value + rhs : value - rhs;
    }
    return value;
  }

  private term(depth: number): number {
    let value = this.unary(depth);
    for (let op = this.peekOp(); op === '*' || op === '/'; op = this.peekOp()) {
      this.pos++;
      const rhs = this.unary(depth);
      if (op === '/' && rhs === 0) throw new CalcError('division by zero');
      value = op === '*' ? value * rhs : value / rhs;
    }
    return value;
  }

  private unary(depth: number): number {
    if (depth > MAX_DEPTH) throw new CalcError('expression nested too deeply');
    const t = this.tokens[this.pos];
    if (t === undefined) throw new CalcError('unexpected end of expression');
    this.pos++;
    if (t.kind === 'num') return t.value;
    if (t.text === '-') return -this.unary(depth + 1);
    if (t.text === '+') return this.unary(depth + 1);
    if (t.text === '(') {
      const value = this.expr(depth + 1);
      const close = this.tokens[this.pos];
      if (close === undefined) throw new CalcError("missing ')'");
      if (close.text !== ')') throw new CalcError(`unexpected '${close.text}'`);
      this.pos++;
      return value;
    }
    throw new CalcError(`unexpected '${t.text}'`);
  }
}

/** Evaluates an arithmetic expression; never throws. */
export function evaluate(expression: string): CalcResult {
  if (expression.length > MAX_LENGTH) return { ok: false, error: 'error: expression too long' };
  try {
    const value = new Parser(tokenize(expression)).parseAll();
    if (!Number.isFinite(value)) return { ok: false, error: 'error: result is not finite' };
    return { ok: true, value: value === 0 ? 0 : value };
  } catch (err) {
    if (err instanceof CalcError) return { ok: false, error: `error: ${err.message}` };
    throw err;
  }
}

/** A number as the tool prints it: integers plainly, others rounded to 4 decimals. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const rounded = Number(value.toFixed(4));
  return String(rounded === 0 ? 0 : rounded);
}

/** The tool's reply text: the formatted value or the error string. */
export function calcToolReply(expression: string): string {
  const r = evaluate(expression);
  return r.ok ? formatNumber(r.value) : r.error;
}
