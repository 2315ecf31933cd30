// The main job, `npm run workbench` = `agentjet ui --connect-local`: the worker and the
// clients start without any click, the page shows the live session, and Ctrl-C (SIGINT) stops the
// worker too (its port stops answering).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  byTestId,
  browserSkipReason,
  launchChromium,
  poll,
  screenshot,
  startUiProcess,
  type UiProcess,
} from './harness';

const missing = browserSkipReason();

describe.skipIf(missing !== null)('main job: agentjet ui --connect-local', () => {
  let dataDir: string;
  let ui: UiProcess;
  let browser: Browser | null = null;
  let workerUrl = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentjet-e2e-main-'));
    ui = await startUiProcess(dataDir, [
      '--connect-local',
      '--clients',
      '1',
      '--batch',
      '1',
      '--group-size',
      '2',
      '--eval-episodes',
      '0',
    ]);
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (ui && ui.child.exitCode === null) await ui.stop(10_000);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('connects the local worker by itself and the page shows the live session', async () => {
    workerUrl = await poll(
      async () => /agentjet ui: connected · run \S+ · worker (http:\/\/\S+)/.exec(ui.output())?.[1],
      150_000,
      'the "connected" line',
    );
    expect((await fetch(`${workerUrl}/health`)).ok).toBe(true);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    await page.goto(ui.url);
    const state = await poll(
      async () => {
        const s = (await byTestId(page, 'session-state').textContent({ timeout: 2000 }))?.trim() ?? '';
        return ['running', 'updating', 'checkpointing'].includes(s) ? s : undefined;
      },
      60_000,
      'the session state of the live run',
    );
    expect(state).toBeTruthy();
    await screenshot(page, 'main-job');
  });

  it('stops the clients and the worker on SIGINT', async () => {
    await browser?.close();
    browser = null;
    const res = await ui.stop(60_000);
    expect(res, ui.output().slice(-3000)).toMatchObject({ code: 0, signal: null });
    await expect(fetch(`${workerUrl}/health`, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
  });
});
