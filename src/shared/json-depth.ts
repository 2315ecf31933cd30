// How deep a JSON text nests, found by one scan of its characters, without parsing and without
// recursion (issue #19): a request may nest its arrays and objects at most so deep (tool schemas,
// tool-call arguments), so nothing downstream — V8's reviver, zod, JSON.stringify, the engine's
// recursive JSON parser and template — meets a structure deep enough to exhaust a stack. Where a
// text is too deep, the scan names the field it was in. Pure.

/** A field's location: keys and array indices from the root. */
export type JsonPath = (string | number)[];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The index of the quote closing the string that starts at `start` (its opening quote), or text.length. */
function stringEnd(text: string, start: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return i;
  }
}

/**
 * Where a JSON text first nests deeper than `limit` levels (an array or object opened inside
 * `limit` others): the path of the container it opened in, or null when it never does. Keys are
 * taken as written (escapes not decoded). Meant for valid JSON; any text gets an answer.
 */
export function tooDeepAt(text: string, limit: number): JsonPath | null {
  // Per open container: is it an array, and the key or index of the value being read in it.
  const arrays: boolean[] = [];
  const keys: (string | number)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        keys[keys.length - 1] = text.slice(i + 1, end);
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (arrays.length >= limit) return keys.slice();
      arrays.push(c === OPEN_BRACKET);
      keys.push(c === OPEN_BRACKET ? 0 : '');
      expectKey = c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      arrays.pop();
      keys.pop();
      expectKey = false;
    } else if (c === COMMA && arrays.length > 0) {
      const top = keys.length - 1;
      if (arrays[top]) keys[top] = (keys[top] as number) + 1;
      else expectKey = true;
    }
  }
  return null;
}

/** A path as a field name: `tools[0].function.parameters`, the first `segments` of it, then `…`. */
export function formatJsonPath(path: JsonPath, segments = 6): string {
  const shown = path.slice(0, segments).map((k, i) => {
    if (typeof k === 'number') return `[${k}]`;
    if (!/^[A-Za-z_$][\w$-]*$/.test(k)) return `[${JSON.stringify(k.slice(0, 40))}]`;
    return i === 0 ? k : `.${k}`;
  });
  return `${shown.join('')}${path.length > segments ? '…' : ''}`;
}
