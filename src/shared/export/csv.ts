// Rows as CSV (RFC 4180: comma-separated, CRLF line ends, fields with a comma, quote or line break
// quoted, quotes doubled) and JSONL; nested objects (e.g. breakCounts) flattened to dotted columns.
// Text a client chose (task and client ids, metric names) must not become a spreadsheet formula: a text
// cell that begins with = + - @, tab or CR is written the way OWASP recommends (CSV injection) — a
// single quote in front, the cell quoted. Numbers stay numbers (a reward of -1 is written -1). Pure.

/** `{a: {b: 1}, c: 2}` → `{"a.b": 1, c: 2}`; arrays are kept as JSON text. */
export function flattenRow(row: object, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    const key = prefix === '' ? k : `${prefix}.${k}`;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) Object.assign(out, flattenRow(v, key));
    else out[key] = v;
  }
  return out;
}

/** A spreadsheet reads a cell starting with one of these as a formula (or strips them before one). */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' && FORMULA_START.test(v)) return `"'${v.replace(/"/g, '""')}"`;
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The CSV of `rows` (flattened); columns in order of first appearance unless given. */
export function toCsv(rows: readonly object[], columns?: readonly string[]): string {
  const flat = rows.map((r) => flattenRow(r));
  const cols = columns ?? [...new Set(flat.flatMap((r) => Object.keys(r)))];
  return (
    [cols.map(csvCell).join(','), ...flat.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n'
  );
}

export const toJsonl = (rows: readonly unknown[]): string =>
  rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length > 0 ? '\n' : '');
