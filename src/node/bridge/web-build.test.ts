// Staleness of the browser build, on a scratch folder laid out like the repository.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newestMtime, webBuildState } from './web-build';

let root: string;
const at = (path: string, seconds: number): void => utimesSync(join(root, path), seconds, seconds);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'web-build-'));
  mkdirSync(join(root, 'src', 'renderer', 'src'), { recursive: true });
  mkdirSync(join(root, 'src', 'shared'), { recursive: true });
  writeFileSync(join(root, 'src', 'renderer', 'index.html'), '<html>');
  writeFileSync(join(root, 'src', 'renderer', 'src', 'App.tsx'), 'x');
  writeFileSync(join(root, 'src', 'shared', 'api.ts'), 'y');
  for (const p of [
    'src/renderer/index.html',
    'src/renderer/src/App.tsx',
    'src/renderer/src',
    'src/renderer',
    'src/shared/api.ts',
    'src/shared',
    'src',
  ])
    at(p, 1000);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const build = (seconds: number): void => {
  mkdirSync(join(root, 'out', 'web'), { recursive: true });
  writeFileSync(join(root, 'out', 'web', 'index.html'), '<html>');
  at('out/web/index.html', seconds);
};

describe('webBuildState', () => {
  it('is missing without out/web/index.html', () => {
    expect(webBuildState(root)).toEqual({ state: 'missing' });
  });
  it('is fresh when the build is newer than every source, stale when one source is newer', () => {
    build(2000);
    expect(webBuildState(root)).toEqual({ state: 'fresh' });
    at('src/renderer/src/App.tsx', 3000);
    expect(webBuildState(root)).toEqual({ state: 'stale', newestSource: 3_000_000 });
  });
  it('counts shared sources too (the renderer imports the contract)', () => {
    build(2000);
    at('src/shared/api.ts', 2500);
    expect(webBuildState(root).state).toBe('stale');
  });
  it('uses a build as is where the sources are absent (installed package)', () => {
    build(2000);
    rmSync(join(root, 'src'), { recursive: true });
    expect(webBuildState(root)).toEqual({ state: 'prebuilt' });
  });
  it('newestMtime walks folders and is 0 for a missing path', () => {
    expect(newestMtime(join(root, 'nope'))).toBe(0);
    at('src/shared/api.ts', 4000);
    expect(newestMtime(join(root, 'src'))).toBe(4_000_000);
  });
});
