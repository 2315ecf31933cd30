// Chat-template rendering with bounded work. A reward model's chat template comes from its folder and
// runs inside the client's process, synchronously: a template that loops a million times or builds huge
// strings or lists would block the client's event loop (and its HTTP calls) for seconds. So every render
// has a budget of work units, charged as @huggingface/jinja's interpreter goes: one per node it
// evaluates; per element of what a `for` loop iterates (charged each time the loop starts, so nested
// loops multiply); and, for nodes that build a value rather than look one up, its size (list elements,
// mapping entries, a unit per 64 characters of text). `range` charges its loop before building it.
// A render past the budget stops at once with a TemplateBudgetError. The budget grows with the input
// (a template's honest work is linear in the conversation): see `renderBudget`; bounded-template.test.ts
// measures what it allows. Globals are jinja's own (`range`, `raise_exception`, `strftime_now`,
// `namespace`, true/false/none).
import { Environment, Interpreter, Template } from '@huggingface/jinja';

type Node = Parameters<Interpreter['evaluate']>[0];
type Value = ReturnType<Interpreter['evaluate']>;

const CHARS_PER_UNIT = 64;
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
/** Units per element a loop iterates: a loop step costs jinja a scope and a `loop` mapping. */
const UNITS_PER_ITERATION = 20;

/** The size of the input: a unit per JSON value (message, field, list element) and per 64 characters of text. */
export function inputSize(items: unknown): number {
  let size = 0;
  const stack: unknown[] = [items];
  while (stack.length > 0) {
    const x = stack.pop();
    size += 1;
    if (typeof x === 'string') size += Math.floor(x.length / CHARS_PER_UNIT);
    else if (Array.isArray(x)) stack.push(...x);
    else if (isRecord(x)) stack.push(...Object.values(x));
  }
  return size;
}

/**
 * The work a render of `items` may spend: a fixed 100,000 units plus 100 per unit of input size —
 * honest templates need a few tens per unit (bounded-template.test.ts), and a runaway one on a small
 * conversation stops within a few hundred milliseconds.
 */
export const renderBudget = (items: Record<string, unknown>): number => 100_000 + 100 * inputSize(items);

export class TemplateBudgetError extends Error {
  constructor(readonly budget: number) {
    super(
      `the chat template needed more than ${budget} units of work to render this conversation (a loop or a text ` +
        'too large for a chat template); the render was stopped',
    );
    this.name = 'TemplateBudgetError';
  }
}

class Meter {
  used = 0;
  constructor(readonly budget: number) {}
  charge(units: number): void {
    this.used += units;
    if (this.used > this.budget) throw new TemplateBudgetError(this.budget);
  }
}

/** The size of a value, in units: list elements, mapping entries, text length / 64. */
function sizeOf(v: Value): number {
  const x: unknown = v.value;
  if (typeof x === 'string') return Math.floor(x.length / CHARS_PER_UNIT);
  if (Array.isArray(x)) return x.length;
  if (x instanceof Map) return x.size;
  return 0;
}

/** The expressions `for` loops iterate (for `for x in xs if c`: `xs`), found once per template. */
function loopIterables(root: unknown): WeakSet<object> {
  const found = new WeakSet<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (isRecord(node)) {
      if (node['type'] === 'For' && isRecord(node['iterable'])) {
        const it = node['iterable'];
        found.add(it['type'] === 'SelectExpression' && isRecord(it['lhs']) ? it['lhs'] : it);
      }
      for (const v of Object.values(node)) if (typeof v === 'object') stack.push(v);
    }
  }
  return found;
}

/** A node that looks a value up (`messages`, `message.content`) rather than building one. */
function isLookup(node: object): boolean {
  if (!('type' in node)) return false;
  if (node.type === 'Identifier') return true;
  return (
    node.type === 'MemberExpression' &&
    !('property' in node && isRecord(node.property) && node.property['type'] === 'SliceExpression')
  );
}

class MeteredInterpreter extends Interpreter {
  constructor(
    env: Environment,
    private readonly meter: Meter,
    private readonly iterables: WeakSet<object>,
  ) {
    super(env);
  }

  override evaluate(statement: Node, environment: Environment): Value {
    this.meter.charge(1);
    const v = super.evaluate(statement, environment);
    if (statement === undefined) return v;
    if (this.iterables.has(statement)) this.meter.charge(UNITS_PER_ITERATION * sizeOf(v));
    else if (!isLookup(statement)) this.meter.charge(sizeOf(v));
    return v;
  }
}

/** Python's range(stop) / range(start, stop[, step]), charged (as the loop over it) before it is built. */
function meteredRange(meter: Meter) {
  const int = (x: unknown): number => {
    if (typeof x !== 'number' || !Number.isSafeInteger(x)) throw new Error('range() takes integers');
    return x;
  };
  return (a: unknown, b?: unknown, s: unknown = 1): number[] => {
    const [start, stop, step] = b === undefined ? [0, int(a), int(s)] : [int(a), int(b), int(s)];
    if (step === 0) throw new Error('range() step must not be zero');
    meter.charge(UNITS_PER_ITERATION * Math.max(0, Math.ceil((stop - start) / step)));
    const out: number[] = [];
    for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
    return out;
  };
}

/** jinja's `strftime_now`, rendered by the library itself (so dates read as they do everywhere else). */
const strftimeTemplate = new Template('{{ strftime_now(f) }}');
const strftimeNow = (format: string): string => strftimeTemplate.render({ f: format });

export class BoundedTemplate {
  private readonly template: Template;
  private readonly iterables: WeakSet<object>;

  /** @param source the template text (parsed here: a syntax error throws now, not at the first render) */
  constructor(source: string) {
    this.template = new Template(source);
    this.iterables = loopIterables(this.template.parsed);
  }

  /** Renders with `items` as variables; throws TemplateBudgetError past `budget`. */
  render(items: Record<string, unknown>, budget = renderBudget(items)): string {
    return this.renderMetered(items, budget).text;
  }

  /** The rendered text and the work units it took. */
  renderMetered(items: Record<string, unknown>, budget = renderBudget(items)): { text: string; units: number } {
    const meter = new Meter(budget);
    const env = new Environment();
    const globals: Record<string, unknown> = {
      false: false,
      true: true,
      none: null,
      False: false,
      True: true,
      None: null,
      raise_exception: (message: unknown) => {
        throw new Error(String(message));
      },
      range: meteredRange(meter),
      strftime_now: strftimeNow,
    };
    for (const [k, v] of Object.entries({ ...globals, ...items })) env.set(k, v);
    const out = new MeteredInterpreter(env, meter, this.iterables).run(this.template.parsed).value;
    if (typeof out !== 'string') throw new Error('the chat template did not render to text');
    return { text: out, units: meter.used };
  }
}
