#!/usr/bin/env node
// `npm start`: builds and opens the desktop app where Electron's binary and a display exist;
// elsewhere says why it cannot and what to run instead.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const electronDir = join(root, 'node_modules', 'electron');
const pathFile = join(electronDir, 'path.txt');
const binary = existsSync(pathFile) ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null;

if (!binary || !existsSync(binary)) {
  console.error(
    'The Electron binary is not installed here (it is downloaded from GitHub at install time, which this machine cannot reach).\n' +
      'Run the trainer headless instead: `npm run demo` (the main job) or `npx agentjet worker --help` (the swarm server).',
  );
  process.exit(1);
}
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  console.error('No display (DISPLAY/WAYLAND_DISPLAY unset): start it under a desktop session or `xvfb-run npm start`.');
  process.exit(1);
}
const res = spawnSync('npx', ['electron-vite', 'preview'], { cwd: root, stdio: 'inherit' });
process.exit(res.status ?? 1);
