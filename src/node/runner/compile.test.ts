// Tests for compileClient: bundles with externals and source maps, content-hash code versions,
// compile errors located at file:line:column.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileClient, formatCompileMessage, hashInputs, leadingExternals } from './compile';
import { REPO_NODE_MODULES, tempProject, type TempProject } from './test-support';

const run = promisify(execFile);

let project: TempProject;
let cacheDir: string;

beforeEach(async () => {
  project = await tempProject({
    'lib/greet.ts': `export function greet(name: string): string {\n  return 'hello ' + name;\n}\n`,
    'client.ts': [
      `import { z } from 'zod';`,
      `import { greet } from './lib/greet';`,
      `const Name = z.string().min(1);`,
      `console.log(greet(Name.parse('swarm')), import.meta.dirname);`,
      ``,
    ].join('\n'),
  });
  cacheDir = join(project.dir, '.cache');
});

afterEach(() => project.cleanup());

describe('compileClient', () => {
  it('bundles TypeScript with sibling imports into a runnable ESM file, npm packages external', async () => {
    const r = await compileClient(join(project.dir, 'client.ts'), { cacheDir, nodePaths: [REPO_NODE_MODULES] });
    if (!r.ok) throw new Error(r.errors.map(formatCompileMessage).join('\n'));
    expect(r.codeVersion).toMatch(/^[0-9a-f]{12}$/);
    expect(r.bundlePath).toBe(join(cacheDir, r.codeVersion, 'client.mjs'));
    expect(existsSync(`${r.bundlePath}.map`)).toBe(true);
    expect(r.entry).toBe('client.ts');
    expect(r.inputs.map((f) => f.path).sort()).toEqual(['client.ts', 'lib/greet.ts']);
    const bundle = await readFile(r.bundlePath, 'utf8');
    expect(bundle).toMatch(/from "file:\/\/\/.*node_modules\/zod\//); // zod stays external
    expect(bundle).toContain('hello ');
    const { stdout } = await run(process.execPath, [r.bundlePath], { cwd: project.dir });
    expect(stdout.trim()).toBe(`hello swarm ${project.dir}`);
  });

  it('gives the same code version for the same sources and a new one when any source changes', async () => {
    const entry = join(project.dir, 'client.ts');
    const opts = { cacheDir, nodePaths: [REPO_NODE_MODULES] };
    const a = await compileClient(entry, opts);
    const b = await compileClient(entry, opts);
    await project.write('lib/greet.ts', `export function greet(name: string): string {\n  return 'hi ' + name;\n}\n`);
    const c = await compileClient(entry, opts);
    if (!a.ok || !b.ok || !c.ok) throw new Error('compile failed');
    expect(b.codeVersion).toBe(a.codeVersion);
    expect(c.codeVersion).not.toBe(a.codeVersion);
    expect(hashInputs(a.inputs)).toBe(a.codeVersion); // no node_modules file was bundled
  });

  it('reports a syntax error in an imported file with its file:line:column, writing no bundle', async () => {
    const bad = await project.write(
      'lib/greet.ts',
      `export function greet(name: string): string {\n  return 'hello ' + ;\n}\n`,
    );
    const r = await compileClient(join(project.dir, 'client.ts'), { cacheDir, nodePaths: [REPO_NODE_MODULES] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ file: bad, line: 2, column: 21 });
    expect(formatCompileMessage(r.errors[0]!)).toMatch(/greet\.ts:2:21: Unexpected ";"/);
    expect(existsSync(cacheDir)).toBe(false);
  });

  it('reports a missing package at the importing line', async () => {
    const entry = await project.write(
      'client.ts',
      `const x = 1;\nimport { nope } from 'no-such-package-agentjet';\nconsole.log(x, nope);\n`,
    );
    const r = await compileClient(entry, { cacheDir });
    if (r.ok) throw new Error('expected a compile error');
    expect(r.errors[0]).toMatchObject({ file: entry, line: 2 });
    expect(r.errors[0]!.message).toContain('no-such-package-agentjet');
  });

  it('compiles source text as if it were a file in resolveDir, and maps its errors there', async () => {
    const ok = await compileClient(
      {
        source: `import { greet } from './lib/greet';\nconsole.log(greet('src'));\n`,
        resolveDir: project.dir,
        sourcefile: 'edited.ts',
      },
      { cacheDir },
    );
    if (!ok.ok) throw new Error(ok.errors.map(formatCompileMessage).join('\n'));
    expect(ok.inputs.map((f) => f.path).sort()).toEqual(['edited.ts', 'lib/greet.ts']);
    const { stdout } = await run(process.execPath, [ok.bundlePath]);
    expect(stdout.trim()).toBe('hello src');
    const bad = await compileClient(
      { source: `const a = 1;\nconst b = ;\n`, resolveDir: project.dir, sourcefile: 'edited.ts' },
      { cacheDir },
    );
    if (bad.ok) throw new Error('expected a compile error');
    expect(bad.errors[0]).toMatchObject({ file: join(project.dir, 'edited.ts'), line: 2, column: 11 });
  });

  it('compiles an overlay of edited files in place of the disk, hashing the edited contents, disk untouched', async () => {
    const greetPath = join(project.dir, 'lib/greet.ts');
    const onDisk = await readFile(greetPath, 'utf8');
    const entry = join(project.dir, 'client.ts');
    const plain = await compileClient({ entry }, { cacheDir, nodePaths: [REPO_NODE_MODULES] });
    const edited = `export function greet(name: string): string {\n  return 'howdy ' + name;\n}\n`;
    const r = await compileClient(
      { entry, overlay: { [greetPath]: edited } },
      { cacheDir, nodePaths: [REPO_NODE_MODULES] },
    );
    if (!r.ok || !plain.ok) throw new Error('compile failed');
    expect(r.codeVersion).not.toBe(plain.codeVersion);
    expect(r.inputs.find((f) => f.path === 'lib/greet.ts')?.contents).toBe(edited);
    const { stdout } = await run(process.execPath, [r.bundlePath], { cwd: project.dir });
    expect(stdout.trim()).toBe(`howdy swarm ${project.dir}`);
    expect(await readFile(greetPath, 'utf8')).toBe(onDisk);
    const bad = await compileClient(
      { entry, overlay: { [greetPath]: `export const greet = (n: string) => ;\n` } },
      { cacheDir, nodePaths: [REPO_NODE_MODULES] },
    );
    if (bad.ok) throw new Error('expected a compile error');
    expect(bad.errors[0]).toMatchObject({ file: greetPath, line: 1 });
  });

  it('source maps point stack traces at the original TypeScript lines', async () => {
    const entry = await project.write(
      'boom.ts',
      `type T = { a: number };\nconst t: T = { a: 1 };\nfunction boom(): never {\n  throw new Error('boom ' + t.a);\n}\nboom();\n`,
    );
    const r = await compileClient(entry, { cacheDir });
    if (!r.ok) throw new Error('compile failed');
    const err = await run(process.execPath, ['--enable-source-maps', r.bundlePath]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(err instanceof Error && 'stderr' in err ? err.stderr : '')).toContain(`${entry}:4:9`);
  });

  it('keeps a dynamic import lazy: its packages load only when it runs; the bundle lists what it loads first', async () => {
    await project.write(
      'lib/heavy.ts',
      `import { z } from 'zod';\nexport const parse = (x: unknown) => z.string().parse(x);\n`,
    );
    const entry = await project.write(
      'lazy.ts',
      [
        `import { greet } from './lib/greet';`,
        `console.log(greet('lazy'));`,
        `if (process.argv[2] === 'heavy') console.log((await import('./lib/heavy')).parse('loaded'));`,
      ].join('\n'),
    );
    const r = await compileClient(entry, { cacheDir, nodePaths: [REPO_NODE_MODULES] });
    if (!r.ok) throw new Error(r.errors.map(formatCompileMessage).join('\n'));
    expect(await readFile(r.bundlePath, 'utf8')).not.toMatch(/node_modules\/zod\//); // in a chunk beside it
    expect(r.preload).toEqual([]);
    expect((await run(process.execPath, [r.bundlePath], { cwd: project.dir })).stdout.trim()).toBe('hello lazy');
    const heavy = await run(process.execPath, [r.bundlePath, 'heavy'], { cwd: project.dir });
    expect(heavy.stdout.trim()).toBe('hello lazy\nloaded');
    const first = await compileClient(join(project.dir, 'client.ts'), { cacheDir, nodePaths: [REPO_NODE_MODULES] });
    if (!first.ok) throw new Error('compile failed');
    expect(first.preload).toEqual([expect.stringMatching(/^file:\/\/\/.*node_modules\/zod\//)]);
  });
});

describe('leadingExternals', () => {
  const ext = (path: string) => ({ path, kind: 'import-statement', external: true });
  it('lists the packages before the first chunk of client code, past esbuild helper chunks, in order', () => {
    const outputs = {
      'o/client.mjs': {
        imports: [
          { path: 'o/chunk-helpers.mjs', kind: 'import-statement' },
          ext('file:///nm/openai/index.mjs'),
          ext('node:fs'),
          ext('file:///nm/zod/index.js'),
          ext('file:///nm/openai/index.mjs'),
          { path: 'file:///nm/undici/index.js', kind: 'dynamic-import', external: true },
          { path: 'o/chunk-shared.mjs', kind: 'import-statement' },
          ext('file:///nm/late/index.js'),
        ],
        inputs: { 'client.ts': {} },
      },
      'o/chunk-helpers.mjs': { imports: [], inputs: {} },
      'o/chunk-shared.mjs': { imports: [], inputs: { 'lib/shared.ts': {} } },
    };
    expect(leadingExternals(outputs, 'o/client.mjs')).toEqual([
      'file:///nm/openai/index.mjs',
      'file:///nm/zod/index.js',
    ]);
    expect(leadingExternals(outputs, 'o/missing.mjs')).toEqual([]);
  });
});
