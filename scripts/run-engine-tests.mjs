#!/usr/bin/env node
// Runs the Python test suites with the engine's interpreter (AGENTJET_PYTHON or the setup venv):
// the engine's own tests (gpu-worker/engine/tests), the Python benchmarks' (bench/python/tests) and
// the Python SDK's tests against a real worker (resources/sdk/python). Extra arguments go to the
// engine's pytest.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const engineDir = join(root, 'gpu-worker', 'engine');
const python = process.env.AGENTJET_PYTHON ?? join(engineDir, '.venv', 'bin', 'python');

function pytest(cwd, args) {
  const res = spawnSync(python, ['-m', 'pytest', '-q', ...args], { cwd, stdio: 'inherit' });
  if (res.error) {
    console.error(`cannot run pytest with ${python}: ${res.error.message} (run \`npm run setup\`)`);
    process.exit(1);
  }
  return res.status ?? 1;
}

const engine = pytest(engineDir, process.argv.slice(2));
const bench = pytest(root, ['-p', 'no:cacheprovider', 'bench/python/tests']);
const sdk = pytest(root, ['resources/sdk/python']);
process.exit([engine, bench, sdk].find((status) => status !== 0) ?? 0);
