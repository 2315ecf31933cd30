#!/usr/bin/env node
// One-shot, idempotent set-up: npm packages (Electron binary skipped where it cannot be fetched)
// and the engine's Python virtualenv from gpu-worker/engine/requirements.txt (and the benchmarks'
// bench/python/requirements.txt).
// Plain Node with no dependencies, so it runs before `node_modules` exists.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const quiet = process.argv.includes('--quiet');
const log = (msg) => {
  if (!quiet) console.log(`[setup] ${msg}`);
};

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit', ...opts });
  if (res.status !== 0) {
    console.error(`[setup] failed: ${cmd} ${args.join(' ')} (exit ${res.status ?? res.signal})`);
    process.exit(res.status ?? 1);
  }
}

function sha(file) {
  return createHash('sha256')
    .update(readFileSync(join(root, file)))
    .digest('hex');
}

// 1. npm packages: (re)install when node_modules is missing or older than the lockfile.
const lock = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');
const modules = join(root, 'node_modules');
if (existsSync(modules) && lstatSync(modules).isSymbolicLink()) {
  // A worktree sharing another checkout's packages: `npm ci` here would empty the shared folder.
  log(`node_modules is a link to ${realpathSync(modules)}; not reinstalling through it`);
} else if (!existsSync(installed) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(installed).mtimeMs)) {
  console.log('[setup] installing npm packages (Electron binary download skipped)…');
  const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', ONNXRUNTIME_NODE_INSTALL: 'skip' };
  run('npm', [existsSync(lock) ? 'ci' : 'install', '--no-audit', '--no-fund'], { env, stdio: 'inherit' });
} else {
  log('npm packages up to date');
}

// 2. The engine's virtualenv, unless the user points AGENTJET_PYTHON at another interpreter.
if (process.env.AGENTJET_PYTHON) {
  log(`using AGENTJET_PYTHON=${process.env.AGENTJET_PYTHON}`);
} else {
  const venv = join(root, 'gpu-worker', 'engine', '.venv');
  const py = join(venv, 'bin', 'python');
  const stamp = join(venv, '.requirements.sha256');
  const requirements = ['gpu-worker/engine/requirements.txt', 'bench/python/requirements.txt'];
  const want = requirements.map(sha).join(' ');
  const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (!existsSync(py) || have !== want) {
    console.log('[setup] creating the engine virtualenv (torch, transformers, …)…');
    const python = process.env.PYTHON ?? 'python3';
    if (!existsSync(py)) run(python, ['-m', 'venv', venv], { stdio: 'inherit' });
    const env = { ...process.env, PIP_RETRIES: process.env.PIP_RETRIES ?? '0', PIP_DISABLE_PIP_VERSION_CHECK: '1' };
    run(py, ['-m', 'pip', 'install', '-q', ...requirements.flatMap((r) => ['-r', r])], { env, stdio: 'inherit' });
    writeFileSync(stamp, `${want}\n`);
  } else {
    log('engine virtualenv up to date');
  }
}
log('done');
