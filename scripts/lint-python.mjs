#!/usr/bin/env node
// Python lint for `npm run lint`: ruff's formatter check and its linter (rules in ruff.toml) over
// every Python file in the repository, with the engine's interpreter (AGENTJET_PYTHON or the setup
// venv, where requirements.txt installs ruff). `--fix` formats and applies ruff's safe fixes instead.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const python = process.env.AGENTJET_PYTHON ?? join(root, 'gpu-worker', 'engine', '.venv', 'bin', 'python');
const fix = process.argv.includes('--fix');

function ruff(args) {
  const res = spawnSync(python, ['-m', 'ruff', ...args], { cwd: root, stdio: 'inherit' });
  if (res.error) {
    console.error(`cannot run ruff with ${python}: ${res.error.message} (run \`npm run setup\`)`);
    process.exit(1);
  }
  return res.status ?? 1;
}

const format = ruff(fix ? ['format', '.'] : ['format', '--check', '.']);
const check = ruff(fix ? ['check', '--fix', '.'] : ['check', '.']);
process.exit(format !== 0 ? format : check);
