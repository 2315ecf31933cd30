// Compiles a swarm client (a TypeScript/JavaScript entry file, or source text) with esbuild into an
// ESM bundle with a source map, in a cache folder named by the client code version: a content hash
// of every bundled source file. Compile errors come back as values carrying file:line:column. Code
// splitting is on, so what the sources import dynamically (`await import('./x')`) lands in a chunk
// beside the bundle and loads, with the packages it imports, only when the import runs: without it
// esbuild hoists those packages' imports to the bundle's top and every client start loads them.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Loader, type Message, type Plugin } from 'esbuild';
import { z } from 'zod';
import { externalizePackages } from './externalize-plugin';

/**
 * Client code: an entry file path, or source text compiled as if it were a file in `resolveDir`.
 * `overlay` (absolute path → contents) serves edited files in place of what is on disk, so an
 * edit can be compiled without touching the files; the code version covers the edited contents.
 */
export type ClientCode =
  | string
  | { entry: string; overlay?: Readonly<Record<string, string>> }
  | {
      source: string;
      resolveDir: string;
      sourcefile?: string;
      loader?: 'ts' | 'js';
      overlay?: Readonly<Record<string, string>>;
    };

export interface CompileOptions {
  /** Where bundles are written, one folder per code version. Default: `<os tmp>/agentjet-runner`. */
  cacheDir?: string;
  /** Extra folders to look for packages in (like NODE_PATH), e.g. the workbench's own node_modules. */
  nodePaths?: string[];
}

/** A compile diagnostic. `file` is absolute; `line` and `column` are 1-based (0 when esbuild gave no location). */
export interface CompileMessage {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** A bundled source file: its path relative to the root folder ('/'-separated) and its text. */
export interface SourceFile {
  path: string;
  contents: string;
}

export interface CompileOk {
  ok: true;
  bundlePath: string;
  codeVersion: string;
  /** The entry's folder: source paths are relative to it, and clients run with it as their cwd. */
  rootDir: string;
  /** The entry file, relative to rootDir. */
  entry: string;
  /** The user's bundled sources (outside node_modules), for the code store. */
  inputs: SourceFile[];
  /** file: URLs of the packages the bundle imports before any of its own code (see leadingExternals). */
  preload: string[];
  warnings: CompileMessage[];
  ms: number;
}

export interface CompileErr {
  ok: false;
  errors: CompileMessage[];
  warnings: CompileMessage[];
  ms: number;
}

export type CompileResult = CompileOk | CompileErr;

const HASH_SALT = 'agentjet-client-bundle/1';
export const BUNDLE_NAME = 'client.mjs';

export function defaultCacheDir(): string {
  return join(tmpdir(), 'agentjet-runner');
}

/** `file:line:column: message`, the form editors and terminals link. */
export function formatCompileMessage(m: CompileMessage): string {
  return m.line > 0 ? `${m.file}:${m.line}:${m.column}: ${m.message}` : `${m.file}: ${m.message}`;
}

/** Short content hash of the bundled inputs: their root-relative paths and contents, in path order. */
export function hashInputs(inputs: readonly SourceFile[]): string {
  const h = createHash('sha256').update(HASH_SALT);
  for (const f of [...inputs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    h.update('\0').update(f.path).update('\0').update(f.contents);
  }
  return h.digest('hex').slice(0, 12);
}

interface Normalized {
  rootDir: string;
  /** Absolute path of the entry (for stdin: the path the source pretends to have). */
  entryPath: string;
  stdin?: { contents: string; resolveDir: string; sourcefile: string; loader: 'ts' | 'js' };
  /** Edited contents by absolute path. */
  overlay: ReadonlyMap<string, string>;
}

function normalize(code: ClientCode): Normalized {
  if (typeof code === 'string' || 'entry' in code) {
    const entryPath = resolve(typeof code === 'string' ? code : code.entry);
    const overlay = new Map(
      Object.entries(typeof code === 'string' ? {} : (code.overlay ?? {})).map(([path, text]) => [resolve(path), text]),
    );
    return { rootDir: dirname(entryPath), entryPath, overlay };
  }
  const rootDir = resolve(code.resolveDir);
  const sourcefile = code.sourcefile ?? 'client.ts';
  const loader = code.loader ?? (/\.[cm]?js$/.test(sourcefile) ? 'js' : 'ts');
  return {
    rootDir,
    entryPath: join(rootDir, sourcefile),
    stdin: { contents: code.source, resolveDir: rootDir, sourcefile, loader },
    overlay: new Map(Object.entries(code.overlay ?? {}).map(([path, text]) => [resolve(path), text])),
  };
}

// esbuild's failure crosses its service process; parse the part we use instead of trusting a cast.
const MessageSchema = z.object({
  text: z.string(),
  location: z.object({ file: z.string(), line: z.number(), column: z.number() }).nullable(),
});
const FailureSchema = z.object({ errors: z.array(MessageSchema), warnings: z.array(MessageSchema) });

function toMessage(m: z.infer<typeof MessageSchema> | Message, n: Normalized): CompileMessage {
  if (!m.location) return { file: n.entryPath, line: 0, column: 0, message: m.text };
  return {
    file: resolve(n.rootDir, m.location.file),
    line: m.location.line,
    column: m.location.column + 1,
    message: m.text,
  };
}

const LOADERS: Record<string, Loader> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.json': 'json',
};

/** Serves the overlay's contents for its paths; every other file loads from disk as usual. */
function overlayPlugin(overlay: ReadonlyMap<string, string>): Plugin {
  return {
    name: 'agentjet-overlay',
    setup(b) {
      b.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        const contents = overlay.get(args.path);
        if (contents === undefined) return undefined;
        return { contents, loader: LOADERS[extname(args.path)] ?? 'ts', resolveDir: dirname(args.path) };
      });
    },
  };
}

function buildOptions(n: Normalized, outdir: string, opts: CompileOptions): BuildOptions {
  const entryUrl = pathToFileURL(n.entryPath).href;
  return {
    ...(n.stdin ? { stdin: n.stdin } : { entryPoints: [n.entryPath] }),
    absWorkingDir: n.rootDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Node's conditions (import/node/default), not esbuild's extra bundler-only "module".
    conditions: [],
    nodePaths: opts.nodePaths ?? [],
    outdir,
    splitting: true,
    entryNames: BUNDLE_NAME.replace(/\.mjs$/, ''),
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    write: false,
    sourcemap: 'linked',
    metafile: true,
    keepNames: true,
    logLevel: 'silent',
    // The bundle runs from the cache, so make import.meta point where the user's entry is.
    define: {
      'import.meta.url': JSON.stringify(entryUrl),
      'import.meta.filename': JSON.stringify(n.entryPath),
      'import.meta.dirname': JSON.stringify(n.rootDir),
    },
    plugins: [...(n.overlay.size > 0 ? [overlayPlugin(n.overlay)] : []), externalizePackages()],
  };
}

interface OutputMeta {
  imports: readonly { path: string; kind: string; external?: boolean }[];
  inputs: Readonly<Record<string, unknown>>;
}

/**
 * The packages the output `key` imports before any client code runs, in its order: what running it
 * starts by evaluating. A chunk of esbuild's own helpers (no source file in it, no imports) is looked
 * past; the first chunk holding client code ends the list. Built-ins are left out (nothing to load).
 */
export function leadingExternals(outputs: Readonly<Record<string, OutputMeta>>, key: string): string[] {
  const out: string[] = [];
  for (const i of outputs[key]?.imports ?? []) {
    if (i.kind !== 'import-statement') continue;
    if (i.external) {
      if (i.path.startsWith('file:') && !out.includes(i.path)) out.push(i.path);
      continue;
    }
    const chunk = outputs[i.path];
    if (!chunk || Object.keys(chunk.inputs).length > 0 || chunk.imports.length > 0) break;
  }
  return out;
}

async function readInputs(keys: string[], n: Normalized): Promise<{ hashed: SourceFile[]; user: SourceFile[] }> {
  const hashed: SourceFile[] = [];
  const user: SourceFile[] = [];
  for (const key of keys) {
    const abs = resolve(n.rootDir, key);
    const path = key.split(sep).join('/');
    let contents: string;
    if (n.stdin && (key === '<stdin>' || abs === n.entryPath)) contents = n.stdin.contents;
    else contents = n.overlay.get(abs) ?? (await readFile(abs, 'utf8').catch(() => ''));
    hashed.push({ path, contents });
    if (!abs.split(sep).includes('node_modules'))
      user.push({ path: n.stdin && key === '<stdin>' ? n.stdin.sourcefile : path, contents });
  }
  return { hashed, user };
}

async function writeAtomic(path: string, contents: Uint8Array): Promise<void> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, contents);
  await rename(tmp, path);
}

/** Compiles client code into `<cacheDir>/<codeVersion>/client.mjs` (+ `.map`). Never throws for bad user code. */
export async function compileClient(code: ClientCode, opts: CompileOptions = {}): Promise<CompileResult> {
  const started = performance.now();
  const n = normalize(code);
  const cacheDir = resolve(opts.cacheDir ?? defaultCacheDir());
  // Build "into" a sibling folder at the same depth as the final one, so the map's relative
  // source paths stay right when the files are written under the code version's folder.
  const pendingOut = join(cacheDir, 'pending', BUNDLE_NAME);
  const ms = (): number => Math.round(performance.now() - started);
  let result;
  try {
    result = await build({ ...buildOptions(n, dirname(pendingOut), opts), write: false, metafile: true });
  } catch (err) {
    const parsed = FailureSchema.safeParse(err);
    if (!parsed.success) {
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, errors: [{ file: n.entryPath, line: 0, column: 0, message }], warnings: [], ms: ms() };
    }
    return {
      ok: false,
      errors: parsed.data.errors.map((m) => toMessage(m, n)),
      warnings: parsed.data.warnings.map((m) => toMessage(m, n)),
      ms: ms(),
    };
  }
  const { hashed, user } = await readInputs(Object.keys(result.metafile.inputs), n);
  const codeVersion = hashInputs(hashed);
  const outDir = join(cacheDir, codeVersion);
  await mkdir(outDir, { recursive: true });
  let bundlePath = join(outDir, BUNDLE_NAME);
  const outputs = result.metafile.outputs;
  const entryKey = Object.keys(outputs).find((key) => resolve(n.rootDir, key) === pendingOut);
  for (const file of result.outputFiles) {
    const target = join(outDir, file.path.slice(dirname(pendingOut).length + 1));
    if (file.path === pendingOut) bundlePath = target;
    await writeAtomic(target, file.contents);
  }
  return {
    ok: true,
    bundlePath,
    codeVersion,
    rootDir: n.rootDir,
    entry: relative(n.rootDir, n.entryPath).split(sep).join('/'),
    inputs: user,
    preload: entryKey !== undefined ? leadingExternals(outputs, entryKey) : [],
    warnings: result.warnings.map((m) => toMessage(m, n)),
    ms: ms(),
  };
}
