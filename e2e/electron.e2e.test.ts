// The desktop app's first steps through Electron (playwright-core's `_electron.launch`): the same
// connect flows as the browser spec. Skipped, saying why, where the Electron binary is absent
// (its download is skipped on machines that cannot reach GitHub) or there is no display.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { badRemoteShowsError, connectLocalAndChart } from './flows';
import { byTestId, E2E_OPTED_OUT, REPO_ROOT } from './harness';

function skipReason(): string | null {
  if (E2E_OPTED_OUT) return 'AGENTJET_SKIP_E2E=1';
  if (!existsSync(join(REPO_ROOT, 'node_modules', 'electron', 'path.txt'))) {
    return 'the Electron binary is absent (node_modules/electron/path.txt missing: its download was skipped at install); run this spec where `npm install` fetched Electron';
  }
  if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY'])
    return 'no display (DISPLAY unset): run under `xvfb-run npm run test:e2e`';
  return null;
}

const reason = skipReason();
if (reason) console.warn(`Electron e2e skipped: ${reason}`);

describe.skipIf(reason !== null)(`desktop app (Electron)${reason ? ` — skipped: ${reason}` : ''}`, () => {
  let dataDir: string;
  let app: ElectronApplication;
  let page: Page;

  beforeAll(async () => {
    const build = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    if (build.status !== 0) throw new Error(`electron-vite build failed:\n${build.stdout}\n${build.stderr}`);
    dataDir = mkdtempSync(join(tmpdir(), 'agentjet-e2e-electron-'));
    // The package's `main` is out/main/index.js.
    // Chromium refuses to run as root with its sandbox (CI containers); elsewhere the sandbox stays on.
    const rootArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    app = await _electron.launch({
      args: [...rootArgs, REPO_ROOT],
      cwd: REPO_ROOT,
      env: { ...process.env, AGENTJET_HOME: dataDir },
    });
    page = await app.firstWindow();
    await byTestId(page, 'nav-connect').waitFor({ state: 'visible', timeout: 60_000 });
  });

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a bad remote URL shows a clear error', async () => {
    await badRemoteShowsError(page, 'electron-');
  });

  // The desktop app trains with the worker's default batch (8 tasks × 4), so the first step takes longer.
  it('connects a local worker and reward points arrive', async () => {
    await connectLocalAndChart(page, 'electron-', 540_000);
  }, 600_000);
});
