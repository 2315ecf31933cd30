// esbuild plugin: Node built-ins and packages found in a node_modules folder stay external and are
// imported at run time by absolute file URL; everything else (the user's files, workspace sources,
// TypeScript) is bundled.
import { builtinModules } from 'node:module';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OnResolveArgs, OnResolveResult, Plugin, PluginBuild } from 'esbuild';

const builtins = new Set(builtinModules);

/** Whether a specifier names a Node built-in (`fs`, `node:fs`, `fs/promises`). */
export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtins.has(specifier);
}

/** Whether a specifier is a bare package name rather than a relative or absolute path. */
export function isBareSpecifier(specifier: string): boolean {
  return !(
    specifier.startsWith('.') ||
    specifier.startsWith('/') ||
    /^[A-Za-z]:[\\/]/.test(specifier) ||
    specifier.startsWith('file:')
  );
}

const inNodeModules = (path: string): boolean => path.split(sep).includes('node_modules');

/**
 * Why absolute URLs rather than bare specifiers: the bundle lives in a cache folder, from which
 * Node's own lookup would not find the project's node_modules; resolving at compile time (with
 * Node's conditions, see `conditions: []` in compile.ts) makes the bundle independent of where it
 * is written, turns a missing package into a compile error with file:line, and honours `nodePaths`.
 * `require()` calls are bundled instead, since an ESM bundle has no `require` to hand them to.
 */
export function externalizePackages(): Plugin {
  return {
    name: 'agentjet-externalize-packages',
    setup(build) {
      // One resolution per specifier, folder and kind in a build (zod is imported by dozens of files).
      const resolutions = new Map<string, Promise<OnResolveResult | undefined>>();
      // Relative and absolute paths, and node: built-ins (external on platform node), never reach the
      // plugin: each call is a round trip out of esbuild.
      build.onResolve({ filter: NOT_RELATIVE_NOR_NODE_PREFIXED }, (args) => {
        if (args.pluginData === 'agentjet-inner' || args.kind === 'entry-point') return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (!isBareSpecifier(args.path)) return undefined;
        const key = [args.kind, args.namespace, args.resolveDir, args.path, JSON.stringify(args.with)].join('\0');
        let r = resolutions.get(key);
        if (!r) {
          r = resolvePackage(build, args);
          resolutions.set(key, r);
        }
        return r;
      });
    },
  };
}

/** `^(?!node:)[^./]` in RE2 (esbuild's filters have no lookahead). */
export const NOT_RELATIVE_NOR_NODE_PREFIXED = /^(?:[^./n]|n(?:$|[^o])|no(?:$|[^d])|nod(?:$|[^e])|node(?:$|[^:]))/;

async function resolvePackage(build: PluginBuild, args: OnResolveArgs): Promise<OnResolveResult | undefined> {
  const resolved = await build.resolve(args.path, {
    kind: args.kind,
    importer: args.importer,
    resolveDir: args.resolveDir,
    namespace: args.namespace,
    with: args.with,
    pluginData: 'agentjet-inner',
  });
  // Let esbuild's own resolver fail, so the error points at the importing file:line.
  if (resolved.errors.length > 0) return undefined;
  const external = inNodeModules(resolved.path) && (args.kind === 'import-statement' || args.kind === 'dynamic-import');
  if (external) return { path: pathToFileURL(resolved.path).href + resolved.suffix, external: true };
  return {
    path: resolved.path,
    namespace: resolved.namespace,
    sideEffects: resolved.sideEffects,
    suffix: resolved.suffix,
  };
}
