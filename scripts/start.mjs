#!/usr/bin/env node
// `npm start`: builds and opens the desktop app where Electron's binary and a display exist;
// elsewhere says why it cannot and points to the browser workbench (`npm run workbench`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const electronDir = join(root, 'node_modules', 'electron');
const pathFile = join(electronDir, 'path.txt');
const binary = existsSync(pathFile) ? join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()) : null;

const browserMode =
  'Use the same workbench in a browser instead:\n' +
  '  npm run workbench          built-in model + calculator-agent, training live; open the printed URL\n' +
  '  npx agentjet ui            the workbench UI alone (connect from the page); `npx agentjet ui --help`';

if (!binary || !existsSync(binary)) {
  console.error(
    'The Electron binary is not installed here (it is downloaded from GitHub at install time, which this machine cannot reach).\n' +
      browserMode,
  );
  process.exit(1);
}
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  console.error(
    `No display (DISPLAY/WAYLAND_DISPLAY unset): start it under a desktop session or \`xvfb-run npm start\`.\n${browserMode}`,
  );
  process.exit(1);
}
// `electron-vite preview` builds main, preload and renderer, then starts Electron on the build.
const res = spawnSync('npx', ['electron-vite', 'preview'], { cwd: root, stdio: 'inherit' });
process.exit(res.status ?? 1);
