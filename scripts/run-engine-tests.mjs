#!/usr/bin/env node
// Runs the engine's pytest suite with the engine's interpreter (AGENTJET_PYTHON or the setup venv).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const engineDir = join(root, 'gpu-worker', 'engine');
const python = process.env.AGENTJET_PYTHON ?? join(engineDir, '.venv', 'bin', 'python');
const res = spawnSync(python, ['-m', 'pytest', '-q', ...process.argv.slice(2)], { cwd: engineDir, stdio: 'inherit' });
if (res.error) {
  console.error(`cannot run the engine tests with ${python}: ${res.error.message} (run \`npm run setup\`)`);
  process.exit(1);
}
process.exit(res.status ?? 1);
