// Pure helpers of the editor panel: file ids and URIs, dirty tracking across reloads, the ambient
// stubs that keep bare npm imports from showing false errors, and compile errors → locations.
// No Monaco and no DOM here, so everything is unit-tested in node.
import type { CodeFile, CompileError, SaveResult, Session } from '../../../../shared/workbench-api';

/** The data-testid of a file's tab (`editor-file-<path with / replaced by _>`). */
export function fileTabTestId(path: string): string {
  return `editor-file-${path.replaceAll('/', '_')}`;
}

/** A workspace-relative path, '/'-separated, without a leading './' or '/'. */
export function normalizePath(path: string): string {
  return path.replaceAll('\\', '/').replace(/^(\.\/|\/)+/, '');
}

/** The Monaco model URI of a file, so the TypeScript service resolves relative imports between them. */
export function fileUri(path: string): string {
  return `file:///${normalizePath(path)}`;
}

/** A code version (content hash) shortened for display. */
export function shortVersion(version: string | null | undefined, length = 8): string {
  if (!version) return '—';
  return version.length > length ? version.slice(0, length) : version;
}

/** The last segment of a path. */
export function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

/**
 * A file as the editor holds it: `base` is the content last loaded from or saved to main, `current`
 * what the user sees. Reloading never throws away unsaved edits: a clean file takes the server's
 * content; a dirty one keeps the user's text and moves its base to the server's.
 */
export function reconcileFile(
  state: { base: string; current: string } | undefined,
  serverContent: string,
): { base: string; current: string } {
  if (!state || state.current === state.base) return { base: serverContent, current: serverContent };
  return { base: serverContent, current: state.current };
}

export function isDirty(state: { base: string; current: string }): boolean {
  return state.current !== state.base;
}

/**
 * The files Save & restart sends: the edited editable ones; when nothing is edited, the entry file
 * alone (or the first editable one) — a plain restart with the current code. Read-only files are
 * never sent, and never more than `max` (the API's limit).
 */
export function filesToSave(
  files: readonly { path: string; editable: boolean; base: string; current: string }[],
  entry: string | null,
  max = 50,
): CodeFile[] {
  const editable = files.filter((f) => f.editable);
  const edited = editable.filter((f) => f.current !== f.base);
  const chosen =
    edited.length > 0
      ? edited
      : editable
          .filter((f) => f.path === entry)
          .concat(editable)
          .slice(0, 1);
  return chosen.slice(0, max).map((f) => ({ path: f.path, content: f.current }));
}

const IMPORT_PATTERNS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\sfrom\s*['"]([^'"\n]+)['"]/g,
  /\bimport\s*['"]([^'"\n]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
  /\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
];

/** Every module specifier a source imports (static, side-effect, dynamic, require), in first-seen order. */
export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  const hits: { at: number; spec: string }[] = [];
  for (const pattern of IMPORT_PATTERNS) {
    for (const m of source.matchAll(pattern)) if (m[1] !== undefined) hits.push({ at: m.index, spec: m[1] });
  }
  hits.sort((a, b) => a.at - b.at);
  for (const h of hits) found.add(h.spec);
  return [...found];
}

/** A specifier that names a package (or a Node built-in) rather than a file. */
export function isBareSpecifier(spec: string): boolean {
  return !spec.startsWith('.') && !spec.startsWith('/') && !/^[a-z]+:\/\//i.test(spec);
}

/** Node globals client code commonly touches; typed loosely since Node's own types are not loaded. */
const NODE_GLOBALS = `declare const process: {
  env: Record<string, string | undefined>;
  argv: string[];
  pid: number;
  platform: string;
  exitCode: number | undefined;
  cwd(): string;
  exit(code?: number): never;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  stdout: { write(chunk: string): boolean };
  stderr: { write(chunk: string): boolean };
};
declare const Buffer: {
  from(
    data: string | ArrayLike<number> | ArrayBuffer,
    encoding?: string,
  ): Uint8Array & { toString(encoding?: string): string };
  byteLength(data: string, encoding?: string): number;
};
`;

/**
 * The ambient declarations added to the TypeScript service: `declare module 'x';` for every bare
 * specifier the files import (those packages have no model, so they are typed `any` rather than
 * shown as errors), plus a few Node globals.
 */
export function ambientDeclarations(files: readonly { content: string }[]): string {
  const bare = new Set<string>();
  for (const f of files) for (const spec of importSpecifiers(f.content)) if (isBareSpecifier(spec)) bare.add(spec);
  const modules = [...bare].sort().map((spec) => `declare module ${JSON.stringify(spec)};`);
  const header = '// Generated by the workbench editor: packages without a model are typed loosely.';
  return `${header}\n${modules.join('\n')}\n${NODE_GLOBALS}`;
}

/**
 * The editor file a compile error points at: the exact path, or else the longest file path the
 * error's path ends with (main may report absolute paths), or null when none matches.
 */
export function resolveErrorPath(errorPath: string, paths: readonly string[]): string | null {
  const wanted = normalizePath(errorPath);
  if (paths.includes(wanted)) return wanted;
  let best: string | null = null;
  for (const p of paths) {
    const n = normalizePath(p);
    if ((wanted.endsWith(`/${n}`) || n.endsWith(`/${wanted}`)) && (best === null || n.length > best.length)) best = p;
  }
  return best;
}

/** A 1-based Monaco range for an error (line/column 0 means "no location": the file's first line). */
export function errorRange(
  error: CompileError,
  lineLength: number,
): { startLineNumber: number; startColumn: number; endLineNumber: number; endColumn: number } {
  const line = Math.max(1, error.line);
  const column = Math.max(1, error.column);
  const endColumn = Math.max(column + 1, lineLength + 1);
  return { startLineNumber: line, startColumn: column, endLineNumber: line, endColumn };
}

/** `path:line:column`, the form editors and terminals link. */
export function errorLocation(error: CompileError): string {
  return error.line > 0 ? `${error.path}:${error.line}:${error.column}` : error.path;
}

/** The status line after a save. */
export function saveSummary(result: SaveResult): string {
  if (!result.ok)
    return `${result.errors.length} compile error${result.errors.length === 1 ? '' : 's'}; running clients untouched`;
  const ms = (x: number): string => `${Math.round(x)} ms`;
  const swapped = `clients restarted in ${ms(result.swapMs)} (compiled in ${ms(result.compileMs)})`;
  const n = result.quarantined;
  if (n === undefined) return swapped;
  return `${swapped}; ${n} episode${n === 1 ? '' : 's'} of the previous version quarantined`;
}

/** Date/time of a version, compact. */
export function formatVersionTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${date} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Monaco language id by file extension. */
export function languageOf(path: string): string {
  if (/\.(ts|mts|cts|tsx)$/.test(path)) return 'typescript';
  if (/\.(js|mjs|cjs|jsx)$/.test(path)) return 'javascript';
  if (path.endsWith('.json')) return 'json';
  if (path.endsWith('.py')) return 'python';
  if (path.endsWith('.md')) return 'markdown';
  return 'plaintext';
}

/** One file of a diff between two sets of files (null: absent on that side). */
export interface DiffPair {
  path: string;
  original: string | null;
  modified: string | null;
}

/**
 * Pairs the files of two versions by path (exact, else by suffix: versions may store paths
 * relative to the client folder while the editor's are workspace-relative), changed files first.
 */
export function pairDiffFiles(from: readonly CodeFile[], to: readonly CodeFile[]): DiffPair[] {
  const toPaths = to.map((f) => f.path);
  const used = new Set<string>();
  const pairs: DiffPair[] = [];
  for (const f of from) {
    const match = resolveErrorPath(
      f.path,
      toPaths.filter((p) => !used.has(p)),
    );
    if (match !== null) used.add(match);
    pairs.push({
      path: f.path,
      original: f.content,
      modified: match === null ? null : to.find((t) => t.path === match)!.content,
    });
  }
  for (const t of to) if (!used.has(t.path)) pairs.push({ path: t.path, original: null, modified: t.content });
  const changed = (p: DiffPair): number => (p.original === p.modified ? 1 : 0);
  return pairs.sort((a, b) => changed(a) - changed(b) || a.path.localeCompare(b.path));
}

/**
 * Whether a connect is still under way: a connect is finished only when its activity (starting the
 * worker, compiling, starting the clients) has cleared; the client files exist from then on.
 */
export function isConnecting(session: Session | null): boolean {
  return (
    session !== null &&
    (session.state === 'connecting' || (session.activity !== null && session.activity.phase !== 'stopping'))
  );
}
