// A benchmark's one-line JSON summary → figures (pure): every finite number is a figure named by
// its path (`a.b.c`, array items by index); an array of numbers is a curve whose figure is its
// last value. Strings, booleans and nulls are not figures.
export interface Figure {
  figure: string;
  value: number;
  curve: number[] | null;
}

const isNumberArray = (v: unknown): v is number[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));

export function flattenFigures(summary: unknown, prefix = '', out: Figure[] = []): Figure[] {
  if (typeof summary === 'number') {
    if (Number.isFinite(summary) && prefix) out.push({ figure: prefix, value: summary, curve: null });
  } else if (isNumberArray(summary)) {
    out.push({ figure: prefix, value: summary.at(-1)!, curve: summary });
  } else if (Array.isArray(summary)) {
    summary.forEach((v, i) => flattenFigures(v, prefix ? `${prefix}.${i}` : String(i), out));
  } else if (summary && typeof summary === 'object') {
    for (const [k, v] of Object.entries(summary)) flattenFigures(v, prefix ? `${prefix}.${k}` : k, out);
  }
  return out;
}

/** The last line of a benchmark's output that parses as a JSON object (its summary), or null. */
export function lastJsonLine(output: string): unknown {
  const lines = output.split('\n').filter((l) => l.trim().startsWith('{'));
  for (const line of lines.reverse()) {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      // not the summary
    }
  }
  return null;
}
