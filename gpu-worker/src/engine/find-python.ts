// Locates the engine's Python interpreter: an explicit path, AGENTJET_PYTHON, or the setup venv.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** gpu-worker/engine, the engine package's folder (cwd of the engine process). */
export const ENGINE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'engine');

export function findPython(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const candidate = explicit ?? env.AGENTJET_PYTHON;
  if (candidate) {
    if (candidate.includes('/') && !existsSync(candidate)) {
      throw new Error(`engine Python interpreter not found: ${candidate}`);
    }
    return candidate;
  }
  const venv = join(ENGINE_DIR, '.venv', 'bin', 'python');
  if (existsSync(venv)) return venv;
  throw new Error(
    `the engine's virtualenv is missing (${venv}); run \`npm run setup\`, or set AGENTJET_PYTHON to an ` +
      'interpreter with gpu-worker/engine/requirements.txt installed',
  );
}
