// How an option is declared (type, range, default, flag, help, form label) and what is derived
// from a table of declarations: the config schema with its defaults, the patch schema, the
// defaults object, command-line flag schemas (text → typed value), help lines and form fields.
// Pure: no I/O. The tables themselves live in declarations.ts.
import { z } from 'zod';

export type OptionKind = 'int' | 'number' | 'enum' | 'bool' | 'string';

/** A value type: its kind (how a flag's text is read, which form input shows it) and its schema (the range). */
export interface ValueType<S extends z.ZodType = z.ZodType> {
  kind: OptionKind;
  schema: S;
}

export interface OptionSpec<S extends z.ZodType = z.ZodType> {
  value: ValueType<S>;
  /** The default; absent: unset unless given (the engine or the run decides). */
  default?: z.output<S>;
  /** Without a default: what happens when it is not given (help text, e.g. `torch decides`). */
  unset?: string;
  /** The command-line flag without `--` (kebab-case); absent: config file only. */
  flag?: string;
  /** Placeholder of the value in help texts (`N`, `LR`, `C1..C5`). */
  arg?: string;
  /** One line for `--help` and the form's hint; the default is appended by the help. */
  help: string;
  /** Shows the option in the workbench's connect form (advanced settings) under this label. */
  label?: string;
  /** Form labels of enum values (e.g. `C1 — enough episodes`). */
  choices?: Readonly<Record<string, string>>;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** Declares an option (keeps its exact type — schema, whether it has a default — for the derived schemas). */
export const option = <S extends z.ZodType, const T extends OptionSpec<S>>(spec: T & { value: ValueType<S> }): T =>
  spec;

export const intIn = (min: number, max?: number): ValueType<z.ZodNumber> => ({
  kind: 'int',
  schema: max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max),
});
export const numberIn = (schema: z.ZodNumber): ValueType<z.ZodNumber> => ({ kind: 'number', schema });
export const oneOf = <const T extends readonly [string, ...string[]]>(
  values: T,
): ValueType<z.ZodEnum<{ [K in T[number]]: K }>> => ({ kind: 'enum', schema: z.enum(values) });
export const enumOf = <S extends z.ZodEnum>(schema: S): ValueType<S> => ({ kind: 'enum', schema });
export const bool: ValueType<z.ZodBoolean> = { kind: 'bool', schema: z.boolean() };
export const text = (schema: z.ZodString = z.string().min(1)): ValueType<z.ZodString> => ({ kind: 'string', schema });

type Schemas<T extends OptionTable> = { [K in keyof T]: T[K]['value']['schema'] };
type WithDefaults<T extends OptionTable> = {
  [K in keyof T]: T[K] extends { default: unknown }
    ? z.ZodDefault<T[K]['value']['schema']>
    : z.ZodOptional<T[K]['value']['schema']>;
};
export type OptionValues<T extends OptionTable> = { [K in keyof T]: z.output<T[K]['value']['schema']> };
type Defaults<T extends OptionTable> = {
  [K in keyof T as T[K] extends { default: unknown } ? K : never]: z.output<T[K]['value']['schema']>;
};

const entries = <T extends OptionTable>(table: T): [Extract<keyof T, string>, OptionSpec][] =>
  Object.entries(table) as [Extract<keyof T, string>, OptionSpec][];

/** The table's schemas, without defaults (for patches: every field optional). */
export function schemasOf<T extends OptionTable>(table: T): Schemas<T> {
  return Object.fromEntries(entries(table).map(([k, o]) => [k, o.value.schema])) as Schemas<T>;
}

/** The table's schemas, each with its default (or optional where it has none). */
export function schemasWithDefaults<T extends OptionTable>(table: T): WithDefaults<T> {
  return Object.fromEntries(
    entries(table).map(([k, o]) => [
      k,
      o.default === undefined ? o.value.schema.optional() : o.value.schema.default(o.default),
    ]),
  ) as WithDefaults<T>;
}

/** The default of every option that has one. */
export function defaultsOf<T extends OptionTable>(table: T): Defaults<T> {
  return Object.fromEntries(
    entries(table).flatMap(([k, o]) => (o.default === undefined ? [] : [[k, o.default]])),
  ) as Defaults<T>;
}

export const camelCase = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A flag's text as its kind's value (numbers and booleans parsed; the schema then checks the range). */
export function flagValue(kind: OptionKind, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const t = raw.trim();
  if (kind === 'int' || kind === 'number') return t === '' ? raw : Number(t);
  if (kind === 'bool') return t === 'true' ? true : t === 'false' ? false : raw;
  return raw;
}

/** The flag schema of one option: the flag's text read as its kind, checked by its schema. */
export const flagSchema = (o: OptionSpec): z.ZodType =>
  z.preprocess((raw) => flagValue(o.value.kind, raw), o.value.schema);

/** `group-size` → `groupSize`, at the type level. */
export type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type FlagOf<O> = O extends { flag: infer F extends string } ? Camel<F> : never;
type LabeledFlagOf<O> = O extends { label: string; flag: infer F extends string } ? Camel<F> : never;
type ValueOf<O> = O extends { value: ValueType<infer S> } ? z.output<S> : never;

/** Flag schemas (text read as the option's kind) keyed by camelCase flag name, all optional. */
export type FlagShape<T extends OptionTable, K extends keyof T> = {
  [P in K as FlagOf<T[P]>]: z.ZodOptional<z.ZodType<ValueOf<T[P]>>>;
};
/** The connect form's fields (options with a label) keyed by camelCase flag name: plain schemas, all optional. */
export type FormShape<T extends OptionTable> = {
  [P in keyof T as LabeledFlagOf<T[P]>]: z.ZodOptional<T[P]['value']['schema']>;
};

/**
 * Flag schemas keyed by the camelCase flag name (what parseFlags returns); `keys` picks options. A flag
 * left out is unset (the worker's default applies later), or takes the command's `presets` value.
 */
export function flagShape<T extends OptionTable, K extends keyof T = keyof T>(
  table: T,
  keys?: readonly K[],
  presets?: Readonly<Partial<Record<K, unknown>>>,
): FlagShape<T, K> {
  const shape: Record<string, z.ZodType> = {};
  const preset: Readonly<Record<string, unknown>> = presets ?? {};
  for (const [k, o] of Object.entries(table)) {
    if (o.flag === undefined || (keys !== undefined && !(keys as readonly string[]).includes(k))) continue;
    shape[camelCase(o.flag)] =
      preset[k] === undefined ? flagSchema(o).optional() : flagSchema(o).optional().default(preset[k]);
  }
  return shape as FlagShape<T, K>;
}

/** The schemas of the options shown in the connect form, keyed by camelCase flag name, all optional. */
export function formShape<T extends OptionTable>(table: T): FormShape<T> {
  const shape: Record<string, z.ZodType> = {};
  for (const o of Object.values(table))
    if (o.label !== undefined && o.flag !== undefined) shape[camelCase(o.flag)] = o.value.schema.optional();
  return shape as FormShape<T>;
}

/** Picks the values of the table's flags (or of the `keys` options only) out of parsed flags, keyed by option key. */
export function fromFlags<T extends OptionTable>(
  table: T,
  flags: Readonly<Record<string, unknown>>,
  keys?: readonly (keyof T)[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, o] of Object.entries(table)) {
    if (keys !== undefined && !(keys as readonly string[]).includes(k)) continue;
    const v = o.flag === undefined ? undefined : flags[camelCase(o.flag)];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** An option value as help texts and the reference show it (small numbers in exponent form: 1e-4). */
export function formatDefault(v: unknown): string {
  return typeof v === 'number' && v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential() : String(v);
}

/** `--flag ARG` padded, the help and the default (or the given preset), one line per flagged option. */
export function helpLines<T extends OptionTable>(
  table: T,
  opts: {
    keys?: readonly (keyof T)[];
    presets?: Readonly<Record<string, unknown>>;
    width?: number;
    indent?: string;
  } = {},
): string[] {
  const width = opts.width ?? 27;
  const indent = opts.indent ?? '  ';
  const lines: string[] = [];
  for (const [k, o] of Object.entries(table)) {
    if (o.flag === undefined || (opts.keys !== undefined && !(opts.keys as readonly string[]).includes(k))) continue;
    const arg =
      o.arg ?? (o.value.kind === 'enum' ? enumValues(o).join('|') : o.value.kind === 'bool' ? 'true|false' : 'X');
    const head = `--${o.flag} ${arg}`;
    const preset = opts.presets?.[k];
    const shown =
      preset !== undefined ? formatDefault(preset) : o.default !== undefined ? formatDefault(o.default) : o.unset;
    const dflt = shown !== undefined ? ` (default ${shown})` : '';
    lines.push(`${indent}${head.padEnd(width)}${head.length >= width ? ' ' : ''}${o.help}${dflt}`);
  }
  return lines;
}

/** The values of an enum option. */
export function enumValues(o: OptionSpec): string[] {
  const s = o.value.schema;
  return s instanceof z.ZodEnum ? (s.options as string[]) : [];
}

/** A field of the workbench's connect form, derived from an option with a `label`. */
export interface FormField {
  key: string;
  /** The camelCase flag name: the connect params' field. */
  name: string;
  /** `connect-<flag>`: the field's test id. */
  testId: string;
  label: string;
  help: string;
  kind: OptionKind;
  /** Enum values with their labels. */
  choices: { value: string; label: string }[];
  /** Shown as the placeholder of an empty field. */
  defaultText: string;
}

export function formFields(table: OptionTable): FormField[] {
  return Object.entries(table).flatMap(([key, o]) => {
    if (o.label === undefined || o.flag === undefined) return [];
    const choices = enumValues(o).map((value) => ({ value, label: o.choices?.[value] ?? value }));
    return [
      {
        key,
        name: camelCase(o.flag),
        testId: `connect-${o.flag}`,
        label: o.label,
        help: o.help,
        kind: o.value.kind,
        choices,
        defaultText: o.default === undefined ? 'default' : formatDefault(o.default),
      },
    ];
  });
}
