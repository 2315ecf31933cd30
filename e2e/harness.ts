// End-to-end harness: `agentjet ui` as a child process (a real local worker, real clients), a
// headless Chromium through playwright-core, and small waiting helpers keyed on data-testids.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

export const REPO_ROOT = resolve(import.meta.dirname, '..');
export const SCREENSHOTS = join(REPO_ROOT, 'e2e-results', 'screenshots');
export const CHROMIUM = process.env['AGENTJET_E2E_CHROMIUM'] ?? '/usr/bin/chromium';

export interface UiProcess {
  child: ChildProcess;
  /** The page URL with its token (`http://127.0.0.1:P/#token=…`). */
  url: string;
  /** Everything it printed so far (for failure messages). */
  output(): string;
  /** SIGINT, then the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Spawns `agentjet ui --port 0 --data-dir <dir> …` and waits for the URL it prints. */
export function startUiProcess(dataDir: string, extraArgs: string[] = [], timeoutMs = 180_000): Promise<UiProcess> {
  const bin = join(REPO_ROOT, 'bin', 'agentjet.mjs');
  const child = spawn(process.execPath, [bin, 'ui', '--port', '0', '--data-dir', dataDir, ...extraArgs], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let out = '';
  const keep = (chunk: Buffer): void => {
    out += chunk.toString('utf8');
    if (out.length > 400_000) out = out.slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  const stop = async (
    graceMs = 60_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> => {
    const t0 = Date.now();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const res = await exited;
    clearTimeout(timer);
    return { ...res, ms: Date.now() - t0 };
  };
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      void stop(5000);
      reject(new Error(`agentjet ui printed no URL within ${timeoutMs} ms:\n${out.slice(-4000)}`));
    }, timeoutMs);
    const look = (): void => {
      const m = /agentjet ui: open (http:\/\/\S+#token=\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', look);
      resolvePromise({ child, url: m[1]!, output: () => out, stop });
    };
    child.stdout!.on('data', look);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`agentjet ui exited (${code ?? signal}) before serving:\n${out.slice(-4000)}`));
    });
  });
}

export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM)
    ? null
    : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set AGENTJET_E2E_CHROMIUM)`;
}

/** The explicit opt-out: `AGENTJET_SKIP_E2E=1` skips every end-to-end spec. */
export const E2E_OPTED_OUT = process.env['AGENTJET_SKIP_E2E'] === '1';

/**
 * Why the browser specs are skipped, or null when they run. Only the explicit opt-out skips them:
 * a missing Chromium fails the run (global-setup.ts) with the instruction instead.
 */
export function browserSkipReason(): string | null {
  return E2E_OPTED_OUT ? 'AGENTJET_SKIP_E2E=1' : null;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export const byTestId = (page: Page, id: string): Locator => page.locator(`[data-testid="${id}"]`);

/** Waits until the element's attribute, read as a number, satisfies `ok`; returns the value. */
export async function waitForNumberAttr(
  page: Page,
  testId: string,
  attr: string,
  ok: (n: number) => boolean,
  timeoutMs: number,
  describe: string,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last: string | null = null;
  for (;;) {
    last = await byTestId(page, testId)
      .first()
      .getAttribute(attr, { timeout: 5000 })
      .catch(() => null);
    const n = last === null ? Number.NaN : Number(last);
    if (Number.isFinite(n) && ok(n)) return n;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${describe} (${testId} ${attr}=${String(last)})`);
    await page.waitForTimeout(500);
  }
}

/** Polls `probe` until it returns a value (not undefined) or the time is up. */
export async function poll<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  describe: string,
  intervalMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${describe}${lastError ? ` (last error: ${lastError})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export async function showPanel(
  page: Page,
  name: 'connect' | 'editor' | 'charts' | 'clients' | 'inspector' | 'runs' | 'campaigns' | 'rewards' | 'regressions',
): Promise<Locator> {
  await byTestId(page, `nav-${name}`).click();
  const panel = byTestId(page, `panel-${name}`);
  await panel.waitFor({ state: 'visible', timeout: 15_000 });
  return panel;
}

export async function screenshot(page: Page, name: string, timeoutMs = 30_000): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true, timeout: timeoutMs });
  return path;
}

/** The promise's value, or null when it has not settled within `ms` (or rejected). */
export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  try {
    return await Promise.race([p.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}
