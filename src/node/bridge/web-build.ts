// The browser build of the renderer that `agentjet ui` serves (out/web): whether it is missing or
// older than its sources, and running `vite build` with vite.web.config.ts when it is.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Sources of the browser build, relative to the repository root. */
export const WEB_SOURCES = ['src/renderer', 'src/shared', 'vite.web.config.ts', 'package-lock.json'];

export function webBuildDir(repoRoot: string): string {
  return join(repoRoot, 'out', 'web');
}

/** The newest modification time under `path` (a file or a folder, walked recursively); 0 when absent. */
export function newestMtime(path: string): number {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

export type WebBuildState =
  { state: 'fresh' } | { state: 'missing' } | { state: 'stale'; newestSource: number } | { state: 'prebuilt' };

/**
 * `missing`: no out/web/index.html; `stale`: a source is newer; `fresh`: up to date; `prebuilt`:
 * a build exists and the sources are not here (an installed package), so it is used as is.
 */
export function webBuildState(repoRoot: string): WebBuildState {
  const index = join(webBuildDir(repoRoot), 'index.html');
  const haveSources = existsSync(join(repoRoot, 'src', 'renderer', 'index.html'));
  if (!existsSync(index)) return { state: 'missing' };
  if (!haveSources) return { state: 'prebuilt' };
  const built = statSync(index).mtimeMs;
  const newestSource = Math.max(...WEB_SOURCES.map((s) => newestMtime(join(repoRoot, s))));
  return newestSource > built ? { state: 'stale', newestSource } : { state: 'fresh' };
}

/** Runs `vite build --config vite.web.config.ts`; rejects with vite's output on failure. */
export function buildWeb(repoRoot: string, log: (line: string) => void = () => undefined): Promise<void> {
  const vite = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite))
    return Promise.reject(new Error(`cannot build the workbench UI: ${vite} is missing (run \`npm run setup\`)`));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--config', 'vite.web.config.ts'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) {
        for (const line of output.split('\n').filter((l) => l.trim() !== '')) log(line);
        resolve();
      } else
        reject(
          new Error(`building the workbench UI failed (vite exit ${code ?? signal}):\n${output.trim().slice(-4000)}`),
        );
    });
  });
}

/** Builds out/web when missing or stale; returns the folder to serve. */
export async function ensureWebBuild(repoRoot: string, log: (line: string) => void = () => undefined): Promise<string> {
  const s = webBuildState(repoRoot);
  if (s.state === 'missing' || s.state === 'stale') {
    log(
      s.state === 'missing'
        ? 'building the workbench UI (first run)…'
        : 'the workbench UI sources changed: rebuilding…',
    );
    const t0 = performance.now();
    await buildWeb(repoRoot, log);
    log(`built the workbench UI in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return webBuildDir(repoRoot);
}
